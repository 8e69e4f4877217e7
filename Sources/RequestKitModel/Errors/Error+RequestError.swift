extension Error {
    /// This error as a ``RequestError``, or nil when it is another error.
    ///
    /// In a `catch` block whose `do` also calls other throwing functions, `error` is `any Error`; this reads the
    /// request's details without a cast:
    ///
    /// ```swift
    /// do {
    ///     let todo = try await Request { Url("http://127.0.0.1:8080/todos/1") }.decode(Todo.self)
    ///     try save(todo)
    /// } catch {
    ///     print(error.requestError?.statusCode ?? 0, error.localizedDescription)
    /// }
    /// ```
    public var requestError: RequestError? { self as? RequestError }
}

import RequestKitModel

/// One result of polling: a new response, an unchanged resource (a `304 Not Modified`), or a failure.
///
/// ```swift
/// for await result in request.poll(every: .seconds(10)) {
///     switch result {
///     case .changed(let response): print(try response.json())
///     case .unchanged: continue
///     case .failed(let error): print(error)
///     }
/// }
/// ```
public enum PollResult: Sendable {
    /// A validated response with new content.
    case changed(Response)
    /// The server answered `304 Not Modified` to a conditional request: nothing new was downloaded.
    case unchanged
    /// The request failed; polling backs off and carries on.
    case failed(RequestError)

    /// The new response, when there was one.
    ///
    /// ```swift
    /// let body = result.response?.body
    /// ```
    public var response: Response? {
        if case .changed(let response) = self { return response }
        return nil
    }

    /// The error, when the request failed.
    ///
    /// ```swift
    /// if let error = result.error { print(error) }
    /// ```
    public var error: RequestError? {
        if case .failed(let error) = self { return error }
        return nil
    }

    /// Whether the server reported the resource unchanged.
    ///
    /// ```swift
    /// if result.isUnchanged { return }
    /// ```
    public var isUnchanged: Bool {
        if case .unchanged = self { return true }
        return false
    }
}

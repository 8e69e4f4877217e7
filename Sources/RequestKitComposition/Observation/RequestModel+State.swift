import RequestKitModel

#if canImport(Observation)
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension RequestModel {
    /// Where a ``RequestModel`` is.
    ///
    /// ```swift
    /// switch model.state {
    /// case .idle: Text("Not loaded")
    /// case .loading: ProgressView()
    /// case .value(let todo): Text(todo.title)
    /// case .failure(let error): Text(error.description)
    /// }
    /// ```
    public enum State: Sendable {
        /// Nothing was requested yet.
        case idle
        /// A request is running.
        case loading
        /// The last request produced this value.
        case value(Value)
        /// The last request failed.
        case failure(RequestError)
    }
}
#endif

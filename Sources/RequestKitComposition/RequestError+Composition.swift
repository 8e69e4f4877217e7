extension RequestError.Kind {
    /// A chain step could not build its request; ``RequestError/underlyingError`` keeps why.
    public static let stepFailed = Self("stepFailed")
}

extension RequestError {
    /// A step that could not build its request.
    static func stepFailed(detail: String, underlyingError: (any Error)? = nil) -> RequestError {
        RequestError(kind: .stepFailed, underlyingError: underlyingError, detail: detail)
    }

    /// A copy whose description names the chain step it came from, before the request's method and URL.
    func describingStep(_ name: String) -> RequestError {
        var copy = self
        copy.request = "step \"\(name)\"" + (request.map { " (\($0))" } ?? "")
        return copy
    }
}

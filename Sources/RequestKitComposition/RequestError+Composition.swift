import RequestKitDSL
import RequestKitModel

extension RequestError.Kind {
    /// A chain step could not build its request; ``RequestError/underlyingError`` keeps why.
    public static let stepFailed = Self("stepFailed")
}

extension RequestError {
    /// A step that could not build its request.
    static func stepFailed(detail: String, underlyingError: (any Error)? = nil) -> RequestError {
        RequestError(kind: .stepFailed, underlyingError: underlyingError, detail: detail)
    }

    /// A copy whose description names its slot in a ``RequestGroup`` (the index in the group's results), before
    /// the request's method and URL: `slot [2] of the group, GET http://…/todos/3`.
    func describingSlot(_ index: Int, of request: any RequestRepresentable) -> RequestError {
        var copy = self
        copy.request = "slot [\(index)] of the group, " + (self.request ?? request.inFlightLabel)
        return copy
    }

    /// A copy whose description names the chain step it came from, before the request's method and URL.
    func describingStep(_ name: String) -> RequestError {
        var copy = self
        copy.request = "step \"\(name)\"" + (request.map { " (\($0))" } ?? "")
        return copy
    }
}

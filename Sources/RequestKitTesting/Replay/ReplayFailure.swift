import RequestKit

/// Why a ``RecordingTransport`` could not do its work (a request the cassette does not hold, a cassette it cannot
/// read or write), as the underlying error of a `RequestError` of kind `RequestError.Kind.transport`.
struct ReplayFailure: Error, CustomStringConvertible {
    let description: String

    /// A `RequestError` of kind `RequestError.Kind.transport` whose detail is `message`.
    static func error(_ message: String) -> RequestError {
        RequestError.transport(ReplayFailure(description: message), detail: message)
    }
}

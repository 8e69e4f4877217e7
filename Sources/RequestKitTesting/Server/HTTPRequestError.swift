/// Why the server refused a request: the status to answer with and a sentence for the plain-text body.
///
/// ```swift
/// throw HTTPRequestError(status: 400, message: "obsolete line folding is not allowed")
/// ```
struct HTTPRequestError: Error, Equatable {
    /// The status code of the error response.
    let status: Int
    /// What was wrong, sent as the response body.
    let message: String
}

/// Why reading from a connection ended without a request.
enum ConnectionEnd: Error {
    /// The client closed the connection (or it failed).
    case closed
    /// Nothing arrived within the allowed time.
    case timedOut
    /// The server is stopping.
    case stopping
}

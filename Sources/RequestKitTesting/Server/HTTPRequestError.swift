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

/// Why parsing stopped short of a request: the bytes it needs have not arrived yet.
enum ConnectionEnd: Error {
    /// More bytes are needed; parse again from the same position once they arrive.
    case needMore
}

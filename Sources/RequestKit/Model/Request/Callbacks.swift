import Foundation

/// The handlers a request runs when it is sent with `call()`, and how it decodes error bodies.
struct Callbacks: Sendable {
    var statusCode: [@Sendable (Int) -> Void] = []
    var response: [@Sendable (Response) throws(RequestError) -> Void] = []
    var error: [@Sendable (RequestError) -> Void] = []
    var errorBodyDecoder: (@Sendable (Data) -> (any Sendable)?)?

    /// The error with the decoded error body attached, when a decoder is set and the body decodes.
    func attachingErrorBody(to error: RequestError) -> RequestError {
        guard let decode = errorBodyDecoder, let body = error.responseBody,
            let decoded = decode(body)
        else { return error }
        var copy = error
        copy.decodedErrorBody = decoded
        return copy
    }
}

import Foundation
import RequestKit
import RequestKitTesting

/// One request as a matrix test describes it, before a verb sends it.
///
/// The verb adds the `Url` (absolute, or relative to the client's base URL for ``Verb/clientSend``), the method,
/// the body and the transport; `components` come after them.
struct PipelineCall: Sendable {
    /// The server the request starts at; the client's base URL for ``Verb/clientSend``.
    var server: TestServer
    /// The path and query on `server`, starting with `/`.
    var target: String
    /// The method; `nil` for the verb's own: GET, or PUT for ``Verb/upload`` (which always has a body).
    var method: HTTPMethod? = nil
    /// The body; `nil` for none, or a default file body for ``Verb/upload``.
    var payload: Payload? = nil
    /// Further components, applied after the ones the verb adds.
    var components: [any RequestComponent] = []

    /// A request body, given as bytes; ``Verb/upload`` sends the same bytes from a file.
    enum Payload: Sendable {
        /// The bytes as the whole body, with a `Content-Type`.
        case bytes(Data, contentType: MediaType = .octetStream)
        /// A multipart form with one part holding the bytes, with the part's `Content-Type`.
        case formPart(Data, type: MediaType)
    }
}

/// What the caller of a verb observed: the final status and body bytes where the verb gives them, or the error.
struct Observation: Sendable, CustomStringConvertible {
    /// The status of the response, or of the response kept by the error; `nil` when the verb shows none (a decoded
    /// value, an event) or there was no response.
    var status: Int?
    /// The response headers, or those kept by the error.
    var headers: HTTPHeaders?
    /// The body the caller read: the response body, the downloaded file, the first event's data, or the decoded
    /// value encoded again. `nil` when the verb failed.
    var body: Data?
    /// The error the verb threw, or reported in its result.
    var error: RequestError?
    /// Anything else that went wrong: an error of another type, no result, or no answer within the test's bound.
    var otherFailure: String?

    init(status: Int?, headers: HTTPHeaders?, body: Data?) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    init(_ response: Response, body: Data? = nil) {
        self.init(status: response.statusCode, headers: response.headers, body: body ?? response.body)
    }

    init(_ error: RequestError) {
        self.init(status: error.statusCode, headers: error.responseHeaders, body: nil)
        self.error = error
    }

    init(failure: String) {
        self.init(status: nil, headers: nil, body: nil)
        otherFailure = failure
    }

    init(catching error: any Error) {
        if let error = error.requestError {
            self.init(error)
        } else {
            self.init(failure: "\(type(of: error)): \(error)")
        }
    }

    var description: String {
        if let error { return "error \(error.kind) (status \(status.map(String.init) ?? "none")): \(error)" }
        if let otherFailure { return otherFailure }
        let text = body.map { String(decoding: $0.prefix(200), as: UTF8.self) } ?? "none"
        return "status \(status.map(String.init) ?? "not shown"), body \(text)"
    }
}

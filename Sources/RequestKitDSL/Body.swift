import Foundation
import RequestKitModel

/// Sets the request body. `Content-Type` is set from the body's kind unless the request sets one itself.
///
/// An encoding failure is reported when the request is built: a body is never silently left out.
///
/// ```swift
/// Body(Data([0x01, 0x02]))                         // application/octet-stream
/// Body("plain text")                               // text/plain; charset=utf-8, sent as-is
/// Body(Todo(title: "Write tests"))                 // application/json
/// Body(form: ["name": "Ann Lee", "role": "admin"]) // application/x-www-form-urlencoded
/// ```
public struct Body: RequestComponent {
    private let content: Content
    /// The coding the body is compressed with as it is set (``compressed(_:)``); nil to send it as it is.
    var coding: ContentCoding?

    private enum Content: Sendable {
        case valid(RequestBody)
        case invalid(RequestProblem)
        case deferred(@Sendable (JSONEncoder) -> Checked<RequestBody>)

        init(_ checked: Checked<RequestBody>) {
            switch checked {
            case .valid(let body): self = .valid(body)
            case .invalid(let problem): self = .invalid(problem)
            }
        }
    }

    /// Sends bytes as they are.
    ///
    /// ```swift
    /// Body(imageData)
    /// ```
    public init(_ data: Data, contentType: MediaType = .octetStream) {
        content = .valid(RequestBody(data, contentType: contentType))
    }

    /// Sends text as UTF-8, as it is (not JSON-quoted).
    ///
    /// ```swift
    /// Body("{\"raw\": true}", contentType: .json)
    /// ```
    public init(_ text: String, contentType: MediaType = MediaType.text.charset("utf-8")) {
        content = .valid(RequestBody(Data(text.utf8), contentType: contentType))
    }

    /// Sends text in another encoding.
    ///
    /// ```swift
    /// Body("café", encoding: .isoLatin1)
    /// ```
    public init(_ text: String, encoding: String.Encoding, contentType: MediaType = .text) {
        if let data = text.data(using: encoding) {
            let charset = encoding == .isoLatin1 ? "iso-8859-1" : encoding == .ascii ? "us-ascii" : "utf-8"
            content = .valid(RequestBody(data, contentType: contentType.charset(charset)))
        } else {
            content = .invalid(
                RequestProblem(.bodyEncodingFailed, "the body text cannot be represented in \(encoding)"))
        }
    }

    /// Sends a value encoded as JSON with the given encoder's strategies. The value is encoded now, by
    /// ``TypedJsonEncoder`` (the same JSON as `encoder` would write, with members in the order they are encoded);
    /// a failure is reported when the request is built.
    ///
    /// ```swift
    /// let encoder = JSONEncoder()
    /// encoder.keyEncodingStrategy = .convertToSnakeCase
    /// Body(NewUser(firstName: "Ann"), encoder: encoder)  // {"first_name":"Ann"}
    /// ```
    public init<Value: Encodable>(_ value: Value, encoder: JSONEncoder) {
        content = Content(Self.encoded(value, with: encoder))
    }

    /// Sends a value encoded as JSON with the request's encoder: a ``Client``'s configured `JSONEncoder`
    /// (its key and date strategies), or a plain `JSONEncoder` for a request sent on its own.
    ///
    /// ```swift
    /// Body(Todo(title: "Write tests"))
    /// ```
    public init<Value: Encodable & Sendable>(_ value: Value) {
        content = .deferred { encoder in Self.encoded(value, with: encoder) }
    }

    private static func encoded<Value: Encodable>(_ value: Value, with encoder: JSONEncoder) -> Checked<RequestBody> {
        do {
            return .valid(RequestBody(try encoder.encodeWithTypedEncoder(value), contentType: .json))
        } catch {
            return .invalid(
                RequestProblem(.bodyEncodingFailed, "the \(Value.self) body could not be encoded as JSON: \(error)"))
        }
    }

    /// Sends name/value pairs as `application/x-www-form-urlencoded`, in the order given.
    ///
    /// ```swift
    /// Body(form: [("grant_type", "password"), ("username", "ann")])
    /// ```
    public init(form pairs: [(String, String)]) {
        let encoded = pairs.map { "\(HTTPSyntax.formEncoded($0.0))=\(HTTPSyntax.formEncoded($0.1))" }
        content = .valid(RequestBody(Data(encoded.joined(separator: "&").utf8), contentType: .formURLEncoded))
    }

    /// Sends a dictionary as `application/x-www-form-urlencoded`, sorted by name.
    ///
    /// ```swift
    /// Body(form: ["username": "ann", "password": "s3cret"])
    /// ```
    public init(form dictionary: [String: String]) {
        self.init(form: dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Sends a prepared body.
    ///
    /// ```swift
    /// Body(RequestBody(data, contentType: .pdf))
    /// ```
    public init(_ body: RequestBody) {
        content = .valid(body)
    }

    /// A body that could not be made, reported when the request is built.
    init(problem: RequestProblem) {
        content = .invalid(problem)
    }

    public func apply(to parts: inout RequestParts) {
        let body: RequestBody
        switch content {
        case .valid(let valid): body = valid
        case .invalid(let problem): return parts.report(problem)
        case .deferred(let encode):
            switch encode(parts[option: JSONEncoderKey.self] ?? JSONEncoder()) {
            case .valid(let valid): body = valid
            case .invalid(let problem): return parts.report(problem)
            }
        }
        guard let coding else {
            parts.body = body
            return
        }
        switch Self.compress(body, with: coding) {
        case .valid(let compressed):
            parts.body = compressed
            parts.headers.set("Content-Encoding", coding.name)
        case .invalid(let problem):
            parts.report(problem)
        }
    }
}

/// The JSON encoder `Body(value)` uses; a ``Client`` sets its configured encoder here.
package enum JSONEncoderKey: RequestOptionKey {
    package static let defaultValue: JSONEncoder? = nil
}

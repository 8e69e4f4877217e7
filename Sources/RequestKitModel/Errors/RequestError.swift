import Foundation

/// The one error RequestKit throws: what went wrong, with the response and the underlying error kept.
///
/// Match on ``kind``, or use the accessors:
///
/// ```swift
/// do {
///     let data = try await Request { Url("http://127.0.0.1:8080/missing") }.data()
/// } catch {
///     switch error.kind {
///     case .unacceptableStatus: print(error.statusCode ?? 0, error.responseBody ?? Data())
///     case .timedOut: print("slow server")
///     default: print(error)
///     }
/// }
/// ```
public struct RequestError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The fields but one, in one allocation made only when something fails. A frame, a `Result` or a typed
    /// `throws` that may hold an error holds a reference and ``decodedErrorBody``: the pipeline's async frames,
    /// which a task keeps while it waits, stay small.
    private var storage: Storage

    /// What went wrong, for matching.
    public var kind: Kind { storage.fields.kind }
    /// For an invalid request, every problem found while building it.
    public var problems: [RequestProblem] { storage.fields.problems }
    /// The response, when the server answered (an unacceptable status, a body that failed to decode).
    public var response: Response? { storage.fields.response }
    /// The error that caused this one: the transport's, the decoder's, a validator's.
    public var underlyingError: (any Error)? { storage.fields.underlyingError }
    /// The method and URL of the request, when known (`"GET http://…"`), with secrets in the URL redacted (see
    /// ``SensitiveData``).
    public package(set) var request: String? {
        get { storage.fields.request }
        set { uniqueStorage().fields.request = newValue }
    }
    /// The error body decoded into the type the caller named, when it decoded; users read it with
    /// ``errorBody(as:)``.
    ///
    /// Kept out of the shared storage on purpose: it keeps the error passed by address. With a reference alone
    /// inside, the error is passed by value, and the Swift 6.3 compiler crashes on a closure that throws it typed
    /// (`{ index, response throws(RequestError) in … }`).
    package var decodedErrorBody: (any Sendable)?
    /// Extra context, such as the type being decoded or the limit that was exceeded.
    public var detail: String? { storage.fields.detail }
    /// For a ``Kind/transport`` error, why the connection could not be made or was lost, when that is known.
    ///
    /// ```swift
    /// if error.connectionFailure == .connectionRefused { print("is the server running?") }
    /// ```
    public var connectionFailure: ConnectionFailure? { storage.fields.connectionFailure }
    /// For a ``Kind/tls`` error, which check or step of the secure connection failed.
    ///
    /// ```swift
    /// if error.tlsFailure == .certificateExpired { print("the server's certificate has expired") }
    /// ```
    public var tlsFailure: TLSFailure? { storage.fields.tlsFailure }
    /// Where the request's time went until it failed: the attempts made, the failed one last; nil when the error
    /// came before any (an invalid request, or a transport that reports none).
    ///
    /// ```swift
    /// if let attempt = error.metrics?.attempts.last { print("failed after", attempt.timeline) }
    /// ```
    public package(set) var metrics: RequestMetrics? {
        get { storage.fields.metrics }
        set { uniqueStorage().fields.metrics = newValue }
    }
    /// What ``description`` redacts: the request's sensitive names, or the defaults.
    var redaction: SensitiveData {
        get { storage.fields.redaction }
        set { uniqueStorage().fields.redaction = newValue }
    }
    /// The request whose secret values ``description`` replaces wherever they reappear (``RequestParts/secrets``),
    /// found only when the description is made.
    private var secretSource: RequestParts? {
        get { storage.fields.secretSource }
        set { uniqueStorage().fields.secretSource = newValue }
    }

    /// Creates an error. Transports and custom components use the static factories instead.
    package init(
        kind: Kind, problems: [RequestProblem] = [], response: Response? = nil, underlyingError: (any Error)? = nil,
        request: String? = nil, detail: String? = nil, connectionFailure: ConnectionFailure? = nil,
        tlsFailure: TLSFailure? = nil
    ) {
        storage = Storage(
            Fields(
                kind: kind, problems: problems, response: response, underlyingError: underlyingError,
                request: request, detail: detail, connectionFailure: connectionFailure, tlsFailure: tlsFailure,
                redaction: SensitiveData(), metrics: nil, secretSource: nil))
    }

    /// The storage, copied first when another error shares it, so that changing this error changes no other.
    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
        return storage
    }

    /// The fields of an error.
    private struct Fields {
        var kind: Kind
        var problems: [RequestProblem]
        var response: Response?
        var underlyingError: (any Error)?
        var request: String?
        var detail: String?
        var connectionFailure: ConnectionFailure?
        var tlsFailure: TLSFailure?
        var redaction: SensitiveData
        var metrics: RequestMetrics?
        var secretSource: RequestParts?
    }

    /// The fields, behind a lock. An error is made on one thread (a transport's) and read on another (the task
    /// that awaited it), handed over by a continuation: the lock makes that hand-over one the thread sanitizer
    /// sees, as it does not see the concurrency runtime's. The fields change only through ``uniqueStorage()``,
    /// while one error alone holds them. Only failures pay for it.
    private final class Storage: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Fields

        init(_ fields: Fields) {
            stored = fields
            // Published through the lock, which every reader takes.
            lock.lock()
            lock.unlock()
        }

        var fields: Fields {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    /// The response's status code, when there was a response.
    public var statusCode: Int? { response?.statusCode }

    /// The response body, when there was a response.
    public var responseBody: Data? { response?.body }

    /// The response headers, when there was a response.
    public var responseHeaders: HTTPHeaders? { response?.headers }

    /// Whether the request timed out.
    public var isTimeout: Bool { kind == .timedOut }

    /// Whether the request was cancelled.
    public var isCancelled: Bool { kind == .cancelled }

    /// The error body decoded as `type`, when the caller asked for that type.
    ///
    /// ```swift
    /// catch { if let problem = error.errorBody(as: APIProblem.self) { print(problem.title) } }
    /// ```
    public func errorBody<T>(as type: T.Type) -> T? { decodedErrorBody as? T }

    /// What went wrong, for a person: the kind, the request, the detail, the underlying error and a preview of
    /// the body, with every secret a URL in it carries redacted (see ``SensitiveData``), and every secret value of
    /// the request (a password in its body, a token in its headers: 8 characters or more) wherever it reappears, such
    /// as in a body that echoes the request.
    public var description: String {
        let redacted = redaction.redacting(unredactedDescription)
        guard let secretSource else { return redacted }
        return secretSource.secrets.replacingEchoes(in: redacted)
    }

    /// The same as ``description``: redacted.
    public var debugDescription: String { description }

    /// What `dump(error)` shows: the kind, the status and the redacted description, never the raw body.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["kind": kind, "statusCode": statusCode as Any, "description": description],
            displayStyle: .struct)
    }

    private var unredactedDescription: String {
        var text: String
        switch kind {
        case .invalidRequest:
            let count = problems.count
            text = "Invalid request\(request.map { " for \($0)" } ?? ""): \(count) problem\(count == 1 ? "" : "s")"
            for problem in problems { text += "\n  - \(problem.message)" }
            return text
        case .unacceptableStatus:
            text = "Unacceptable status \(response.map { "\($0.status)" } ?? "?")"
        case .decoding:
            text = "Could not decode \(detail ?? "the response")"
        case .timedOut:
            text = "Timed out\(detail.map { " (\($0))" } ?? "")"
        case .cancelled:
            text = "Cancelled"
        case .transport, .tls:
            if connectionFailure != nil, let detail {
                // The message names the host, port and reason; the system's error text adds only noise.
                return detail + (request.map { " for \($0)" } ?? "")
            }
            text = "Transport failure"
        case .validationFailed:
            text = "Response failed validation"
        default:
            text = kind.name
        }
        if let request { text += " for \(request)" }
        if kind != .unacceptableStatus, kind != .decoding, let detail, kind != .timedOut {
            text += " (\(detail))"
        }
        // A reason given as the detail is not repeated when the underlying error says the same.
        if let underlyingError, case let reason = Self.readable(underlyingError), reason != detail {
            text += ": \(reason)"
        }
        // The body of the answer the error is about (a status refused, a body not decoded, a WebSocket handshake
        // refused, a kind of the caller's); the kinds below have their own detail.
        if let response, !response.body.isEmpty,
            ![.transport, .tls, .timedOut, .cancelled, .validationFailed, .invalidRequest].contains(kind)
        {
            text +=
                "; body: \(redaction.redactedPreview(of: response.body, contentType: response.headers["Content-Type"]))"
        }
        return text
    }

    /// An underlying error as a person reads it: Foundation's and the system's errors print as
    /// `Error Domain=… Code=… "(null)"`, so they are spelled out instead.
    static func readable(_ error: any Error) -> String {
        switch error {
        case let error as URLError:
            let message = error.userInfo[NSLocalizedDescriptionKey] as? String
            return "URLError \(error.code.rawValue)" + (message.map { " (\($0))" } ?? "")
        case let error as POSIXError:
            return String(cString: strerror(error.code.rawValue)) + " (POSIX error \(error.code.rawValue))"
        case let error as DecodingError:
            return readable(error)
        default:
            return "\(error)"
        }
    }

    /// A type's name after "a" or "an": `an Int`, `an Array<String>`, `a String`.
    private static func withArticle(_ type: Any.Type) -> String {
        let name = "\(type)"
        return (name.first.map { "AEIO".contains($0) } == true ? "an " : "a ") + name
    }

    /// What a decoder found wrong, naming the key and where it is: `no key "token" at "data"`.
    static func readable(_ error: DecodingError) -> String {
        func place(_ path: [any CodingKey]) -> String {
            path.isEmpty
                ? ""
                : " at \""
                    + path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
                    .joined(separator: ".").replacingOccurrences(of: ".[", with: "[") + "\""
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "no key \"\(key.stringValue)\"\(place(context.codingPath))"
        case .valueNotFound(let type, let context):
            return "a null where \(withArticle(type)) was expected\(place(context.codingPath))"
        case .typeMismatch(let type, let context):
            return "not \(withArticle(type))\(place(context.codingPath))"
        case .dataCorrupted(let context):
            // Not JSON at all: say where, as `json()` does, rather than only that it is not.
            if let parsing = context.underlyingError.flatMap({ JSONBodies.redacting?.parsingFailure($0) }) {
                return parsing
            }
            return context.debugDescription + place(context.codingPath)
        @unknown default:
            return "\(error)"
        }
    }
}

extension RequestError {
    /// The kinds of request errors: an open set of stable names.
    ///
    /// ```swift
    /// if error.kind == .unacceptableStatus { … }
    /// ```
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// A stable name for the kind.
        public let name: String

        /// Creates a kind with a stable name.
        ///
        /// ```swift
        /// let kind = RequestError.Kind("rateLimited")
        /// ```
        public init(_ name: String) { self.name = name }

        public var description: String { name }

        /// The request definition is invalid; ``RequestError/problems`` lists why.
        public static let invalidRequest = Self("invalidRequest")
        /// The transport failed: no connection, reset, malformed response, URLSession's TLS failures. See
        /// ``RequestError/underlyingError``.
        public static let transport = Self("transport")
        /// An idle or total timeout expired.
        public static let timedOut = Self("timedOut")
        /// The request was cancelled.
        public static let cancelled = Self("cancelled")
        /// The server answered with a status the request does not accept.
        public static let unacceptableStatus = Self("unacceptableStatus")
        /// The body could not be decoded into the requested type.
        public static let decoding = Self("decoding")
        /// A response failed a custom validation.
        public static let validationFailed = Self("validationFailed")
        /// The secure connection could not be set up or verified; ``RequestError/tlsFailure`` says why.
        public static let tls = Self("tls")
    }

    /// An invalid request, listing every problem.
    ///
    /// ```swift
    /// throw RequestError.invalidRequest([RequestProblem(.missingURL, "no Url")])
    /// ```
    public static func invalidRequest(_ problems: [RequestProblem]) -> RequestError {
        RequestError(kind: .invalidRequest, problems: problems)
    }

    /// A transport failure wrapping the underlying error.
    ///
    /// ```swift
    /// throw RequestError.transport(POSIXError(.ECONNREFUSED))
    /// ```
    public static func transport(_ error: any Error, detail: String? = nil) -> RequestError {
        RequestError(kind: .transport, underlyingError: error, detail: detail)
    }

    /// A timeout, with a description of which limit expired.
    ///
    /// ```swift
    /// throw RequestError.timedOut("no data for 30 s")
    /// ```
    public static func timedOut(_ detail: String, underlyingError: (any Error)? = nil) -> RequestError {
        RequestError(kind: .timedOut, underlyingError: underlyingError, detail: detail)
    }

    /// A cancellation.
    ///
    /// ```swift
    /// throw RequestError.cancelled()
    /// ```
    public static func cancelled(underlyingError: (any Error)? = nil) -> RequestError {
        RequestError(kind: .cancelled, underlyingError: underlyingError)
    }

    /// A status the request does not accept, keeping the response.
    ///
    /// ```swift
    /// throw RequestError.unacceptableStatus(response)
    /// ```
    public static func unacceptableStatus(_ response: Response, underlyingError: (any Error)? = nil) -> RequestError {
        RequestError(kind: .unacceptableStatus, response: response, underlyingError: underlyingError)
    }

    /// A response that failed a custom validation.
    ///
    /// ```swift
    /// throw RequestError.validationFailed(response, reason: "expected JSON")
    /// ```
    public static func validationFailed(
        _ response: Response, reason: String, underlyingError: (any Error)? = nil
    )
        -> RequestError
    {
        RequestError(kind: .validationFailed, response: response, underlyingError: underlyingError, detail: reason)
    }

    /// A body that could not be decoded into `type`, keeping the decoder's error and the response.
    ///
    /// ```swift
    /// throw RequestError.decoding(error, type: "Todo", response: response)
    /// ```
    public static func decoding(_ error: any Error, type: String, response: Response?) -> RequestError {
        RequestError(kind: .decoding, response: response, underlyingError: error, detail: type)
    }

    /// A copy that names the request it belongs to.
    package func describingRequest(_ request: String?) -> RequestError {
        guard self.request == nil, let request else { return self }
        var copy = self
        copy.request = request
        return copy
    }

    /// A copy that names the request `parts` build, redacted by their ``SensitiveData``, which its description
    /// redacts by too. Out of line: the failure path of an async caller should not enlarge its frame.
    @inline(never)
    package func describingRequest(_ parts: RequestParts) -> RequestError {
        guard request == nil else { return self }
        var copy = self
        copy.redaction = parts[option: SensitiveDataKey.self]
        copy.request = parts.label
        copy.secretSource = parts
        return copy
    }
}

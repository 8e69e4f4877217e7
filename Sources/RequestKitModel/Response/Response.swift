import Foundation

/// What a server sent back: the status, the headers, the body and the final URL.
///
/// ```swift
/// let response = try await Request { Url("http://127.0.0.1:8080/todos/1") }.send()
/// print(response.status, response.headers["Content-Type"] ?? "")
/// let todo = try response.decode(Todo.self)
/// ```
public struct Response: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The response status.
    public var status: HTTPStatus
    /// The response headers, with case-insensitive lookup.
    public var headers: HTTPHeaders {
        didSet { hasCheckedFraming = false }
    }
    /// The body as received (already decompressed when the transport decodes `Content-Encoding`).
    public var body: Data
    /// The URL the response came from, after any redirects.
    public var url: URL?
    /// Whether it came from the network or from a ``ResponseCache``: ``CacheStatus/network`` without a cache.
    ///
    /// ```swift
    /// if response.cacheStatus == .hit { print("no request was sent") }
    /// ```
    public var cacheStatus = CacheStatus.network
    /// Where the request's time went: each attempt's phases, bytes and connection (``RequestMetrics``), one attempt
    /// per trip to the network. A response a ``ResponseCache`` answered after asking the server
    /// (``CacheStatus/revalidated`` after a `304`, or ``CacheStatus/stale`` after a failed validation) has that
    /// trip's attempt. Empty for a response made by hand, one the cache answered without a request (a hit, a stale
    /// answer while a background refresh asks the server), or one from a transport that reports none.
    ///
    /// ```swift
    /// let response = try await Request { Url("http://127.0.0.1:8080/todos") }.send()
    /// print(response.metrics.attempts.last?.timeline ?? "")
    /// ```
    public var metrics = RequestMetrics()
    /// Whether the transport that parsed these headers held their `Content-Length` to the rule of
    /// ``IncomingResponseCheck`` already, so the pipeline need not read them again. Any change to the headers
    /// clears it.
    package var hasCheckedFraming = false

    /// Creates a response.
    ///
    /// ```swift
    /// let response = Response(status: .ok, headers: ["Content-Type": "text/plain"], body: Data("hi".utf8))
    /// ```
    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data(), url: URL? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// A response with its ``cacheStatus``, made in one step from parts it takes over: a cache's answer, which made
    /// through the public initialiser and then marked was copied whole once more.
    ///
    /// ```swift
    /// let answer = Response(status: .ok, headers: headers, body: body, url: url, cacheStatus: .hit)
    /// ```
    package init(
        status: HTTPStatus, headers: consuming HTTPHeaders, body: consuming Data, url: consuming URL?,
        cacheStatus: CacheStatus
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
        self.cacheStatus = cacheStatus
    }

    /// The numeric status code.
    public var statusCode: Int { status.code }

    /// The media type named by `Content-Type`, if any.
    public var contentType: MediaType? { headers["Content-Type"].map(MediaType.init(parsing:)) }

    /// The body as text, decoded with the charset named by `Content-Type` (UTF-8 when none is named).
    ///
    /// ```swift
    /// let text = try response.string()
    /// ```
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/decoding`` when the bytes are not valid in that
    ///   charset.
    public func string() throws(RequestError) -> String {
        let charset = contentType?.parameters["charset"]?.lowercased() ?? "utf-8"
        let encoding: String.Encoding =
            switch charset {
            case "iso-8859-1", "latin1", "latin-1": .isoLatin1
            case "us-ascii", "ascii": .ascii
            case "utf-16": .utf16
            default: .utf8
            }
        guard let text = String(data: body, encoding: encoding) else {
            throw RequestError.decoding(
                StringDecodingFailure(charset: charset), type: "String", response: self)
        }
        return text
    }

    public var description: String {
        let sensitive = SensitiveData()
        return "\(status) (\(body.count) bytes)\(url.map { " from \(sensitive.redacting($0.absoluteString))" } ?? "")"
    }
}

extension Response {
    /// The status, the URL, the header fields and a preview of the body, with the secrets ``SensitiveData``
    /// names by default redacted: sensitive header values (`Set-Cookie` among them), query values and URL
    /// passwords, and sensitive JSON and form members of the body.
    ///
    /// ```swift
    /// debugPrint(response)
    /// ```
    public var debugDescription: String {
        let sensitive = SensitiveData()
        var lines = [description]
        lines += sensitive.redactedFields(headers)
        if !body.isEmpty { lines.append(sensitive.redactedPreview(of: body, contentType: headers["Content-Type"])) }
        return lines.joined(separator: "\n")
    }

    /// What `dump(response)` shows: the same fields as ``debugDescription``, redacted.
    public var customMirror: Mirror {
        let sensitive = SensitiveData()
        return Mirror(
            self,
            children: [
                "status": status, "url": url.map { sensitive.redacting($0.absoluteString) } as Any,
                "headers": sensitive.redactedFields(headers),
                "body": sensitive.redactedPreview(of: body, contentType: headers["Content-Type"]),
            ], displayStyle: .struct)
    }
}

/// The body's bytes are not valid text in the named charset.
struct StringDecodingFailure: Error, CustomStringConvertible {
    let charset: String
    var description: String { "the body is not valid \(charset) text" }
}

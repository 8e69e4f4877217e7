/// Bounds the size of this request's response body, overriding the client's ``ResponseLimits``.
///
/// `MaxResponseSize(bytes)` bounds a body held in memory (`data()`, `json()`, `decode()`, …);
/// `MaxResponseSize(streamed: bytes)` bounds `stream()` and `download(to:)`. A larger body fails with a
/// ``RequestError`` of kind ``RequestError/Kind/responseTooLarge`` and its connection is closed.
///
/// ```swift
/// Request {
///     Url("http://127.0.0.1:8080/bytes/1024")
///     MaxResponseSize(512 << 10)
/// }
/// ```
public struct MaxResponseSize: RequestComponent {
    /// The limit in bytes.
    public let bytes: Int
    /// Whether the limit is for streamed bodies rather than buffered ones.
    public let isStreamed: Bool

    /// Bounds a body held in memory, after decompression. A negative size is reported when the request is built.
    ///
    /// ```swift
    /// MaxResponseSize(1 << 20)
    /// ```
    public init(_ bytes: Int) {
        self.bytes = bytes
        self.isStreamed = false
    }

    /// Bounds a body moved by `stream()` or `download(to:)`, after decompression.
    ///
    /// ```swift
    /// MaxResponseSize(streamed: 2 << 30)
    /// ```
    public init(streamed bytes: Int) {
        self.bytes = bytes
        self.isStreamed = true
    }

    public func apply(to parts: inout RequestParts) {
        guard bytes >= 0 else {
            parts.report(RequestProblem(.invalidComponent, "a response size limit must not be negative, not \(bytes)"))
            return
        }
        if isStreamed {
            parts[option: ResponseLimitsKey.self].maxStreamedBodyBytes = bytes
        } else {
            parts[option: ResponseLimitsKey.self].maxBodyBytes = bytes
        }
    }
}

/// How much a server may make the client hold or move for one response.
///
/// A hostile or broken server controls the size of what it sends, so RequestKit bounds it:
///
/// - ``maxBodyBytes`` bounds a body held in memory (`send()`, `data()`, `string()`, `json()`, `decode()`, and the
///   same on a ``Client``): 64 MiB by default, measured after decompression.
/// - ``maxStreamedBodyBytes`` bounds `stream()` and `download(to:)`, which never hold the body: no limit by default.
/// - ``maxDecompressionRatio`` bounds how much a compressed body may expand (a "gzip bomb"): once the decoded
///   body passes 1 MiB it may be at most this many times the bytes received. 100 by default.
///   ``URLSessionTransport`` decodes the body itself and reports only the decoded bytes, so there the whole body
///   may decode to at most this many times its `Content-Length`; a compressed body without one (chunked) is
///   bounded by the byte limits alone.
/// - ``maxLineBytes`` bounds what reading a stream as text holds while it waits for an end: a line of
///   ``ResponseBodyStream/lines``, and an event of ``RequestRepresentable/events(_:)`` (its data so far and the line
///   being read). 8 MiB by default, so that a server that never ends a line cannot fill memory.
/// - ``maxSpoolBytes`` bounds the temporary file that holds what a slow consumer of `stream()` has not read yet
///   with ``URLSessionTransport`` on Linux (where a transfer cannot be paused): 256 MiB by default.
///
/// A response over a limit fails with a ``RequestError`` of kind ``RequestError/Kind/responseTooLarge`` and its
/// connection is closed. Set the limits on a client, per request with ``MaxResponseSize``, or replace all of
/// them for one request by writing a `ResponseLimits` among its components:
///
/// ```swift
/// let client = Client(baseURL: url) { configuration in
///     configuration.responseLimits.maxBodyBytes = 8 << 20
///     configuration.responseLimits.maxStreamedBodyBytes = 4 << 30
/// }
/// let request = Request {
///     Url("http://127.0.0.1:8080/stream/10")
///     ResponseLimits(maxDecompressionRatio: 20, maxLineBytes: 1 << 20, maxSpoolBytes: 16 << 20)
/// }
/// ```
public struct ResponseLimits: RequestComponent, Hashable {
    /// The largest body held in memory, in bytes, after decompression. 64 MiB by default.
    ///
    /// ```swift
    /// limits.maxBodyBytes = 1 << 20
    /// ```
    public var maxBodyBytes: Int
    /// The largest body `stream()` and `download(to:)` move, in bytes, after decompression; nil (the default)
    /// for no limit.
    ///
    /// ```swift
    /// limits.maxStreamedBodyBytes = 10 << 30
    /// ```
    public var maxStreamedBodyBytes: Int?
    /// How many times larger than the bytes received a decoded (gzip or deflate) body may grow, once it is past
    /// 1 MiB. 100 by default.
    ///
    /// ```swift
    /// limits.maxDecompressionRatio = 20
    /// ```
    public var maxDecompressionRatio: Int
    /// The longest line ``ResponseBodyStream/lines`` delivers, and the largest event an event stream assembles, in
    /// bytes. 8 MiB by default. Past it, reading fails with ``RequestError/Kind/responseTooLarge`` and the connection
    /// is closed.
    ///
    /// ```swift
    /// limits.maxLineBytes = 64 << 10
    /// ```
    public var maxLineBytes: Int
    /// The largest temporary file a stream over ``URLSessionTransport`` on Linux may fill while its consumer
    /// lags behind, in bytes. 256 MiB by default.
    ///
    /// ```swift
    /// limits.maxSpoolBytes = 64 << 20
    /// ```
    public var maxSpoolBytes: Int

    /// The default limits: 64 MiB in memory, no limit on streams, a ratio of 100, 8 MiB lines and events, a
    /// 256 MiB spool.
    ///
    /// ```swift
    /// var limits = ResponseLimits()
    /// limits.maxBodyBytes = 4 << 20
    /// ```
    public init(
        maxBodyBytes: Int = 64 << 20, maxStreamedBodyBytes: Int? = nil, maxDecompressionRatio: Int = 100,
        maxLineBytes: Int = ResponseLimits.defaultMaxLineBytes, maxSpoolBytes: Int = 256 << 20
    ) {
        self.maxBodyBytes = max(0, maxBodyBytes)
        self.maxStreamedBodyBytes = maxStreamedBodyBytes.map { max(0, $0) }
        self.maxDecompressionRatio = max(1, maxDecompressionRatio)
        self.maxLineBytes = max(0, maxLineBytes)
        self.maxSpoolBytes = max(0, maxSpoolBytes)
    }

    /// The default ``maxLineBytes``: 8 MiB.
    ///
    /// ```swift
    /// var parser = ServerSentEventParser(maxEventBytes: ResponseLimits.defaultMaxLineBytes / 8)
    /// ```
    public static let defaultMaxLineBytes = 8 << 20

    /// Replaces the request's limits (the client's, or the defaults) with these.
    public func apply(to parts: inout RequestParts) {
        parts[option: ResponseLimitsKey.self] = self
    }

    /// The decoded bytes below which no ratio is checked, so that small bodies compress as well as they like.
    package static let decompressionAllowance = 1 << 20
}

package enum ResponseLimitsKey: RequestOptionKey {
    package static let defaultValue = ResponseLimits()
}

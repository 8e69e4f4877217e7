import Foundation
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel

extension Client {
    /// Everything a client applies to the requests it sends.
    ///
    /// ```swift
    /// var configuration = Client.Configuration(baseURL: server.url("/api"))
    /// configuration.defaults = [Header.UserAgent(.requestKit), Timeout(30)]
    /// configuration.encoder.keyEncodingStrategy = .convertToSnakeCase
    /// configuration.retryPolicy = .exponential(maxAttempts: 3)
    /// let client = Client(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The URL relative `Url`s and `Path`s resolve against.
        public var baseURL: URL
        /// Components applied to every request before its own, so a request's own components win.
        public var defaults: [any RequestComponent] = []
        /// The encoder `Body(value)` uses (key and date strategies). `JSONEncoder` is a class: copies of a
        /// configuration share it, so give a copy its own encoder before changing its strategies.
        public var encoder = JSONEncoder()
        /// The decoder responses and error bodies are decoded with; shared by copies, like ``encoder``.
        public var decoder = JSONDecoder()
        /// Which responses count as success unless a request's `Validate` says otherwise.
        public var validation = Validation.successfulStatus
        /// The transport; when nil, the default: ``NativeTransport/shared`` on Linux (URLSession when the environment
        /// names a proxy), ``URLSessionTransport/shared`` on Apple platforms.
        public var transport: (any Transport)?
        /// Interceptors, run in order before a request's own `Intercept` components.
        public var interceptors: [any Interceptor] = []
        /// The retry policy unless a request sets one with `Retry`.
        public var retryPolicy = RetryPolicy.none
        /// The redirect policy unless a request sets one with `Redirects`.
        public var redirectPolicy = RedirectPolicy.follow
        /// Event monitors, such as ``ConsoleLogger``, before a request's own `Monitor` components.
        public var monitors: [any EventMonitor] = []
        /// A jar that stores the cookies responses set and sends them back, or nil for none.
        public var cookieJar: CookieJar?
        /// A cache that answers requests from stored responses when HTTP allows it, or nil for none (the default).
        /// A request's ``Cache`` component uses another.
        ///
        /// ```swift
        /// configuration.cache = ResponseCache(.memory(maxBytes: 16 << 20))
        /// ```
        public var cache: ResponseCache?
        /// The clock retries, polling, event-stream reconnections and total deadlines wait on; the system's
        /// continuous clock by default, a `TestClock` in tests.
        public var clock = RequestClock.continuous
        /// How large a response may be: 64 MiB in memory by default, streams unbounded; see ``ResponseLimits``.
        /// A request's ``MaxResponseSize`` or ``ResponseLimits`` component overrides it.
        ///
        /// ```swift
        /// configuration.responseLimits.maxBodyBytes = 8 << 20
        /// ```
        public var responseLimits = ResponseLimits()
        /// The header and query parameter names whose values are secret: dropped on a redirect to another
        /// origin (headers), redacted in `cURL`, logs and error descriptions. A request's ``Sensitive`` adds to it.
        ///
        /// ```swift
        /// configuration.sensitiveData.headerNames.insert("x-tenant-secret")
        /// ```
        public var sensitiveData = SensitiveData()
        /// W3C Trace Context headers for every request, or nil for none (the default): `TraceContext()` starts a new
        /// trace per request, `TraceContext(traceparent:tracestate:)` continues one with a new span per request. A
        /// request's own ``TraceContext`` component replaces it.
        ///
        /// ```swift
        /// configuration.traceContext = TraceContext()
        /// ```
        public var traceContext: TraceContext?

        /// Creates a configuration with the defaults: no default components, plain JSON coders, 2xx
        /// validation, the shared transport, no interceptors, no retries, redirects followed, no cookie jar, no cache, the
        /// default ``ResponseLimits``, no trace context.
        ///
        /// ```swift
        /// let configuration = Client.Configuration(baseURL: url)
        /// ```
        public init(baseURL: URL) {
            self.baseURL = baseURL
        }
    }
}

import RequestKitModel

/// How this request uses the ``ResponseCache`` of its client or ``Cache`` component, for code written against
/// `URLRequest.CachePolicy`. Each rule stands for request directives of RFC 9111; none of them is sent.
///
/// | Rule | Same as |
/// |---|---|
/// | ``Rule/useProtocol`` | the request's own `Cache-Control` (the default) |
/// | ``Rule/reloadIgnoringCache`` | nothing stored is used; the response is stored as usual |
/// | ``Rule/returnCacheElseLoad`` | `max-stale`: a stored response however old, else the network |
/// | ``Rule/returnCacheDontLoad`` | `max-stale, only-if-cached`: a stored response, else a `504` |
///
/// ```swift
/// let offline = try await Request {
///     Url("http://127.0.0.1:8080/todos")
///     Cache(cache)
///     CachePolicy(.returnCacheDontLoad)
/// }.send()
/// ```
public struct CachePolicy: RequestComponent {
    /// One way of using the cache.
    public struct Rule: Sendable, Hashable, CustomStringConvertible {
        /// The rule's name.
        public let name: String

        private init(_ name: String) { self.name = name }

        /// Follow HTTP's rules and the request's `Cache-Control`: the default.
        ///
        /// ```swift
        /// CachePolicy(.useProtocol)
        /// ```
        public static let useProtocol = Rule("useProtocol")
        /// Go to the network whatever is stored, and store the response as usual.
        ///
        /// ```swift
        /// CachePolicy(.reloadIgnoringCache)
        /// ```
        public static let reloadIgnoringCache = Rule("reloadIgnoringCache")
        /// Use a stored response however stale (unless it must be revalidated); the network when none is stored.
        ///
        /// ```swift
        /// CachePolicy(.returnCacheElseLoad)
        /// ```
        public static let returnCacheElseLoad = Rule("returnCacheElseLoad")
        /// Use a stored response however stale and never the network: without one, the answer is a `504` made
        /// by the cache (``CacheStatus/unsatisfied``), which validation turns into an error as usual.
        ///
        /// ```swift
        /// CachePolicy(.returnCacheDontLoad)
        /// ```
        public static let returnCacheDontLoad = Rule("returnCacheDontLoad")

        public var description: String { name }
    }

    /// The rule.
    public let rule: Rule

    /// Uses the cache by `rule`.
    ///
    /// ```swift
    /// CachePolicy(.reloadIgnoringCache)
    /// ```
    public init(_ rule: Rule) { self.rule = rule }

    public func apply(to parts: inout RequestParts) {
        parts[option: CachePolicyKey.self] = rule
    }
}

package enum CachePolicyKey: RequestOptionKey {
    package static let defaultValue = CachePolicy.Rule.useProtocol
}

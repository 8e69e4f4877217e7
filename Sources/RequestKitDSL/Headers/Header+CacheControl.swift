import RequestKitModel

extension Header {
    /// Sets `Cache-Control` from one or more directives.
    ///
    /// ```swift
    /// Header.CacheControl(.noCache)
    /// Header.CacheControl(.maxAge(60), .noTransform)
    /// ```
    public struct CacheControl: RequestComponent {
        /// The directives, in order.
        public let directives: [Directive]

        /// Sets the directives.
        ///
        /// ```swift
        /// Header.CacheControl(.noStore)
        /// ```
        public init(_ directives: Directive...) { self.directives = directives }

        public func apply(to parts: inout RequestParts) {
            parts.headers.set("Cache-Control", directives.map(\.rawValue).joined(separator: ", "))
        }

        /// A request cache directive (RFC 9111 §5.2.1).
        ///
        /// ```swift
        /// Header.CacheControl(.custom("stale-if-error=60"))
        /// ```
        public struct Directive: Sendable, Hashable {
            /// The directive as sent.
            public let rawValue: String

            /// `no-cache`.
            public static let noCache = Self(rawValue: "no-cache")
            /// `no-store`.
            public static let noStore = Self(rawValue: "no-store")
            /// `no-transform`.
            public static let noTransform = Self(rawValue: "no-transform")
            /// `only-if-cached`.
            public static let onlyIfCached = Self(rawValue: "only-if-cached")

            /// `max-age=N`.
            ///
            /// ```swift
            /// .maxAge(60)
            /// ```
            public static func maxAge(_ seconds: Int) -> Self { Self(rawValue: "max-age=\(seconds)") }

            /// `max-stale` or `max-stale=N`.
            ///
            /// ```swift
            /// .maxStale(30)
            /// ```
            public static func maxStale(_ seconds: Int? = nil) -> Self {
                Self(rawValue: seconds.map { "max-stale=\($0)" } ?? "max-stale")
            }

            /// `min-fresh=N`.
            ///
            /// ```swift
            /// .minFresh(10)
            /// ```
            public static func minFresh(_ seconds: Int) -> Self { Self(rawValue: "min-fresh=\(seconds)") }

            /// Any other directive.
            ///
            /// ```swift
            /// .custom("stale-if-error=60")
            /// ```
            public static func custom(_ directive: String) -> Self { Self(rawValue: directive) }
        }
    }
}

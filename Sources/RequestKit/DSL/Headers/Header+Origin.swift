extension Header {
    /// Sets `Host`, with the port after a colon when given.
    ///
    /// ```swift
    /// Header.Host("api.example.com", port: 8080)  // Host: api.example.com:8080
    /// ```
    public struct Host: RequestComponent {
        /// The header value.
        public let value: String

        /// Sets the host and optional port.
        ///
        /// ```swift
        /// Header.Host("en.example.com")
        /// ```
        public init(_ host: String, port: Int? = nil) {
            value = port.map { "\(host):\($0)" } ?? host
        }

        public func apply(to parts: inout RequestParts) {
            parts.headers.set("Host", value)
        }
    }

    /// Sets `Origin`.
    ///
    /// ```swift
    /// Header.Origin("https://www.example.com")
    /// ```
    public struct Origin: RequestComponent {
        /// The header value.
        public let value: String

        /// Sets the origin.
        ///
        /// ```swift
        /// Header.Origin("https://app.example.com")
        /// ```
        public init(_ value: String) { self.value = value }

        public func apply(to parts: inout RequestParts) {
            parts.headers.set("Origin", value)
        }
    }

    /// Sets `Referer`.
    ///
    /// ```swift
    /// Header.Referer("https://example.com/page")
    /// ```
    public struct Referer: RequestComponent {
        /// The header value.
        public let value: String

        /// Sets the referring page.
        ///
        /// ```swift
        /// Header.Referer("https://example.com/")
        /// ```
        public init(_ value: String) { self.value = value }

        public func apply(to parts: inout RequestParts) {
            parts.headers.set("Referer", value)
        }
    }
}

import RequestKitModel

extension Header {
    /// Sets `User-Agent`, from a preset or any string.
    ///
    /// ```swift
    /// Header.UserAgent(.requestKit)
    /// Header.UserAgent(.firefoxMac)
    /// Header.UserAgent("my-tool/2.1")
    /// ```
    public struct UserAgent: RequestComponent {
        /// The header value.
        public let value: String

        /// Sets a preset.
        ///
        /// ```swift
        /// Header.UserAgent(.curl)
        /// ```
        public init(_ preset: Preset) { value = preset.rawValue }

        /// Sets any string.
        ///
        /// ```swift
        /// Header.UserAgent("inventory-sync/1.0 (+https://example.com/bot)")
        /// ```
        public init(_ value: String) { self.value = value }

        public func apply(to parts: inout RequestParts) {
            parts.headers.set("User-Agent", value)
        }

        /// A ready-made `User-Agent` string.
        ///
        /// ```swift
        /// extension Header.UserAgent.Preset { static let myApp = Self(rawValue: "MyApp/3.0") }
        /// ```
        public struct Preset: Sendable, Hashable {
            /// The header value.
            public let rawValue: String

            /// Creates a preset.
            ///
            /// ```swift
            /// let preset = Header.UserAgent.Preset(rawValue: "MyApp/3.0")
            /// ```
            public init(rawValue: String) { self.rawValue = rawValue }

            /// `RequestKit/<version>`.
            public static let requestKit = Self(rawValue: "RequestKit/\(RequestKitInfo.version)")
            /// curl's default form.
            public static let curl = Self(rawValue: "curl/8.5.0")
            /// Firefox on macOS.
            public static let firefoxMac = Self(
                rawValue: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0")
            /// Firefox on Windows.
            public static let firefoxWindows = Self(
                rawValue: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0")
            /// Chrome on macOS.
            public static let chromeMac = Self(
                rawValue:
                    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
                    + "Chrome/126.0.0.0 Safari/537.36")
            /// Chrome on Windows.
            public static let chromeWindows = Self(
                rawValue:
                    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
                    + "Chrome/126.0.0.0 Safari/537.36")
            /// Safari on macOS.
            public static let safariMac = Self(
                rawValue:
                    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) "
                    + "Version/17.5 Safari/605.1.15")
        }
    }
}

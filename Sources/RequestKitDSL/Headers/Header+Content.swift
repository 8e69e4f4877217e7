import RequestKitModel

extension Header {
    /// Sets `Accept`. Several types are joined in order; quality values are kept as written.
    ///
    /// ```swift
    /// Header.Accept(.json)
    /// Header.Accept(.json, .custom("text/plain;q=0.5"))
    /// ```
    public struct Accept: RequestComponent {
        /// The accepted media types.
        public let types: [MediaType]

        /// Accepts one or more media types.
        ///
        /// ```swift
        /// Header.Accept(.xml)
        /// ```
        public init(_ types: MediaType...) { self.types = types }

        public func apply(to parts: inout RequestParts) {
            parts.headers.set("Accept", types.map(\.description).joined(separator: ", "))
        }
    }

    /// Sets `Content-Type`, overriding the type a `Body` announces.
    ///
    /// ```swift
    /// Header.ContentType(.xml)
    /// ```
    public struct ContentType: RequestComponent {
        /// The media type.
        public let type: MediaType

        /// Sets the media type of the body.
        ///
        /// ```swift
        /// Header.ContentType(.json)
        /// ```
        public init(_ type: MediaType) { self.type = type }

        public func apply(to parts: inout RequestParts) {
            parts.headers.set("Content-Type", type.description)
        }
    }

    /// Sets `Content-Length`. The body's real length is sent regardless; a mismatch is reported.
    ///
    /// ```swift
    /// Header.ContentLength(16)
    /// ```
    public struct ContentLength: RequestComponent {
        /// The declared length in bytes.
        public let length: Int

        /// Declares the body's length.
        ///
        /// ```swift
        /// Header.ContentLength(data.count)
        /// ```
        public init(_ length: Int) { self.length = length }

        public func apply(to parts: inout RequestParts) {
            parts.headers.set("Content-Length", String(length))
        }
    }

    /// Sets `Accept-Language`.
    ///
    /// ```swift
    /// Header.AcceptLanguage("en-GB, en;q=0.8")
    /// ```
    public struct AcceptLanguage: RequestComponent {
        /// The header value.
        public let value: String

        /// Sets the accepted languages.
        ///
        /// ```swift
        /// Header.AcceptLanguage("fr")
        /// ```
        public init(_ value: String) { self.value = value }

        public func apply(to parts: inout RequestParts) {
            parts.headers.set("Accept-Language", value)
        }
    }

    /// Sets `Accept-Encoding`.
    ///
    /// ```swift
    /// Header.AcceptEncoding("gzip, deflate")
    /// ```
    public struct AcceptEncoding: RequestComponent {
        /// The header value.
        public let value: String

        /// Sets the accepted content codings.
        ///
        /// ```swift
        /// Header.AcceptEncoding("identity")
        /// ```
        public init(_ value: String) { self.value = value }

        public func apply(to parts: inout RequestParts) {
            parts.headers.set("Accept-Encoding", value)
        }
    }
}

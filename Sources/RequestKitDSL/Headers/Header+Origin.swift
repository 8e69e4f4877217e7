import RequestKitModel

extension Header {
    /// Sets `Host`, with the port after a colon when given.
    ///
    /// A port outside 0...65535, or port text that is not 1 to 5 ASCII digits, is reported when the request is
    /// built, and the header is not sent.
    ///
    /// ```swift
    /// Header.Host("api.example.com", port: 8080)    // Host: api.example.com:8080
    /// Header.Host("en.example.com", port: "8000")   // the port as text, as swift-request wrote it
    /// ```
    public struct Host: RequestComponent {
        /// The header value.
        public let value: String
        private let problem: RequestProblem?

        /// Sets the host and optional port.
        ///
        /// ```swift
        /// Header.Host("en.example.com")
        /// ```
        public init(_ host: String, port: Int? = nil) {
            let problem = port.flatMap { port in
                (0...65_535).contains(port)
                    ? nil : RequestProblem(.invalidHeaderValue, "the Host port \(port) is not in 0...65535")
            }
            self.init(value: port.map { "\(host):\($0)" } ?? host, problem: problem)
        }

        private init(value: String, problem: RequestProblem?) {
            self.value = value
            self.problem = problem
        }

        /// Sets the host and a port given as text.
        ///
        /// ```swift
        /// Header.Host("en.example.com", port: "8000")  // Host: en.example.com:8000
        /// ```
        public init(_ host: String, port: String) {
            let digits = port.utf8.count <= 5 && !port.isEmpty && port.utf8.allSatisfy { (0x30...0x39).contains($0) }
            if digits, let number = Int(port) {
                self.init(host, port: number)
            } else {
                self.init(
                    value: "\(host):\(port)",
                    problem: RequestProblem(
                        .invalidHeaderValue, "the Host port \(port.debugDescription) is not a number in 0...65535"))
            }
        }

        public func apply(to parts: inout RequestParts) {
            if let problem {
                parts.report(problem)
            } else {
                parts.headers.set("Host", value)
            }
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

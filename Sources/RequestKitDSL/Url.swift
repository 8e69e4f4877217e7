import Foundation
import RequestKitModel

/// Sets the request's URL. Exactly one `Url` belongs in a request (a ``Client`` may supply a base instead).
///
/// A query string in the URL is kept; `Query` components add to it.
///
/// ```swift
/// Url("http://127.0.0.1:8080/todos?userId=1")
/// Url(URL(fileURLWithPath: "/"))                     // reported: unsupported scheme
/// Url(protocol: .https, url: "example.com/api")
/// ```
public struct Url: RequestComponent {
    private let parsed: Checked<URL>

    /// Parses a URL string. A malformed string is reported when the request is built.
    ///
    /// ```swift
    /// Url("http://127.0.0.1:8080/todos")
    /// ```
    public init(_ string: String) {
        if let url = URL(string: string) {
            parsed = .valid(url)
        } else {
            parsed = .invalid(RequestProblem(.malformedURL, "the URL \"\(string)\" is malformed"))
        }
    }

    /// Uses a Foundation URL.
    ///
    /// ```swift
    /// Url(baseURL.appendingPathComponent("todos"))
    /// ```
    public init(_ url: URL) {
        parsed = .valid(url)
    }

    /// Joins a scheme and the rest of a URL.
    ///
    /// ```swift
    /// Url(protocol: .https, url: "example.com/api")  // https://example.com/api
    /// ```
    public init(protocol scheme: Scheme, url: String) {
        self.init("\(scheme.rawValue)://\(url)")
    }

    public func apply(to parts: inout RequestParts) {
        parts.urlCount += 1
        switch parsed {
        case .valid(let url):
            if parts.url == nil { parts.url = url }
        case .invalid(let problem):
            parts.report(problem)
        }
    }

    /// A URL scheme RequestKit can send to.
    ///
    /// ```swift
    /// Url(protocol: .http, url: "127.0.0.1:8080")
    /// ```
    public struct Scheme: Sendable, Hashable {
        /// The scheme's name.
        public let rawValue: String

        /// Creates a scheme.
        ///
        /// ```swift
        /// let scheme = Url.Scheme("http")
        /// ```
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// `http`.
        public static let http = Self("http")
        /// `https`.
        public static let https = Self("https")
        /// `https`, as swift-request named it.
        public static let secure = Self("https")
    }
}

import Foundation
import RequestKitModel

extension Client {
    /// Creates a client for a base URL written as text, adjusting the default configuration.
    ///
    /// ```swift
    /// let client = try Client(baseURL: "https://api.example.com/v1/") { configuration in
    ///     configuration.retryPolicy = .exponential(maxAttempts: 3)
    /// }
    /// ```
    /// - Parameters:
    ///   - baseURL: An absolute `http` or `https` URL with a host.
    ///   - configure: Changes to make to the default configuration.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` saying what is wrong with the text.
    public init(baseURL: String, _ configure: (inout Configuration) -> Void = { _ in }) throws(RequestError) {
        self.init(baseURL: try Self.parsedBaseURL(baseURL), configure)
    }

    /// Creates a client for a base URL written as text, whose requests all start with the given components.
    ///
    /// ```swift
    /// let client = try Client(baseURL: "https://api.example.com/v1/") {
    ///     Header.UserAgent(.requestKit)
    ///     Timeout(.seconds(30))
    /// }
    /// ```
    /// - Parameters:
    ///   - baseURL: An absolute `http` or `https` URL with a host.
    ///   - defaults: The components every request starts with.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` saying what is wrong with the text.
    public init(baseURL: String, @RequestBuilder defaults: () -> any RequestComponent) throws(RequestError) {
        self.init(baseURL: try Self.parsedBaseURL(baseURL), defaults: defaults)
    }

    /// The base URL a text stands for, or an error saying why it cannot be one.
    static func parsedBaseURL(_ text: String) throws(RequestError) -> URL {
        guard let url = URL(string: text) else {
            throw RequestError.invalidRequest([
                RequestProblem(.malformedURL, "the base URL \"\(text)\" is malformed")
            ])
        }
        guard let scheme = url.scheme, HTTPSyntax.isRequestScheme(scheme) else {
            let scheme = url.scheme.map { "\"\($0)\"" } ?? "none"
            throw RequestError.invalidRequest([
                RequestProblem(
                    .unsupportedScheme,
                    "the base URL \"\(text)\" has scheme \(scheme); only http, https, http+unix and https+unix are supported"
                )
            ])
        }
        guard let host = url.host, !host.isEmpty else {
            throw RequestError.invalidRequest([
                RequestProblem(.malformedURL, "the base URL \"\(text)\" has no host")
            ])
        }
        return url
    }
}

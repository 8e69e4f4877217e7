import RequestKitModel

/// Connects this request to fixed addresses for a host and port instead of looking the host up: curl's `--resolve`,
/// for one request. The URL keeps its host, so the `Host` header and TLS (SNI and the certificate's name) are the
/// real name's.
///
/// A request's overrides take precedence over those of its transport (``NativeTransport/Configuration/dnsOverrides``)
/// and over earlier `Resolve` components (a client's ``Client/Configuration/defaults``) for the same host and port;
/// they apply to every hop, redirects included, and to a `WebSocket` definition's connection. Connections opened for
/// an override are pooled apart from those of the name as the resolver answers it. An entry that is not
/// `host:port:address[,address]...` is reported when the request is built, as a ``RequestError`` of kind
/// ``RequestError/Kind/invalidRequest``.
///
/// ``NativeTransport`` honours them; ``URLSessionTransport`` refuses a request to an overridden host and port (its
/// resolver is URLSession's own).
///
/// ```swift
/// let health = try await Request {
///     Url("https://api.example.com/health")
///     Resolve("api.example.com:443:192.0.2.7,[2001:db8::7]")
/// }.send()
/// ```
public struct Resolve: RequestComponent {
    /// The overrides this component adds.
    public let overrides: DNSOverrides
    /// The entries that could not be read.
    private let problems: [RequestProblem]

    /// Overrides written as curl's `--resolve` takes them: `host:port:address[,address]...`, IPv6 addresses in
    /// brackets or bare. An entry that is not of that form is reported when the request is built.
    ///
    /// ```swift
    /// Resolve("staging.example.com:443:192.0.2.7")
    /// Resolve("api.example.com:443:192.0.2.7", "api.example.com:80:192.0.2.7")
    /// ```
    public init(_ entries: String...) {
        var overrides = DNSOverrides()
        var problems: [RequestProblem] = []
        for entry in entries {
            do throws(RequestError) {
                try overrides.add(entry)
            } catch {
                problems += error.problems
            }
        }
        self.overrides = overrides
        self.problems = problems
    }

    /// The overrides of `overrides`.
    ///
    /// ```swift
    /// var overrides = DNSOverrides()
    /// overrides.set(host: "api.example.com", port: 443, to: [SocketAddress(ip: "192.0.2.7", port: 443)].compactMap { $0 })
    /// Resolve(overrides)
    /// ```
    public init(_ overrides: DNSOverrides) {
        self.overrides = overrides
        self.problems = []
    }

    public func apply(to parts: inout RequestParts) {
        for problem in problems { parts.report(problem) }
        guard !overrides.isEmpty else { return }
        parts[option: DNSOverridesKey.self] = parts[option: DNSOverridesKey.self].merging(overrides)
    }
}

import RequestKitModel

/// Turns a host name into socket addresses, one address family at a time: bring your own (service discovery, a
/// fixed table, DNS over HTTPS) in place of the system's resolver.
///
/// The transport asks for IPv6 and IPv4 at once and races the answers (RFC 8305), so each family is a call of its
/// own; an answer is cached for its ``ResolvedAddresses/timeToLive`` (within the cache's floor and ceiling).
///
/// ```swift
/// struct Registry: Resolver {
///     func resolve(
///         host: String, port: Int, family: SocketAddress.Family
///     ) async throws(ResolutionFailure) -> ResolvedAddresses {
///         guard family == .ipv4, host == "billing.internal" else {
///             throw ResolutionFailure(.noAddress, "the registry has no \(family) address for \(host)")
///         }
///         let addresses = [SocketAddress(ip: "10.1.2.3", port: 8443)].compactMap { $0 }
///         return ResolvedAddresses(addresses: addresses, timeToLive: .seconds(30))
///     }
/// }
/// ```
public protocol Resolver: Sendable {
    /// The addresses of `host` of one family, for connecting to `port`.
    ///
    /// - Parameters:
    ///   - host: The host name, as the URL has it.
    ///   - port: The port the request connects to; an address may name another (a service registry's answer).
    ///   - family: ``SocketAddress/Family/ipv6`` (an `AAAA` query) or ``SocketAddress/Family/ipv4`` (an `A` query).
    /// - Returns: The addresses, in the order to try them, and how long they may be cached.
    /// - Throws: ``ResolutionFailure`` when the name has no address of that family or could not be looked up.
    func resolve(
        host: String, port: Int, family: SocketAddress.Family
    ) async throws(ResolutionFailure) -> ResolvedAddresses
}

/// What a ``Resolver`` found for one family: addresses and how long they hold.
///
/// ```swift
/// let answer = ResolvedAddresses(addresses: [address], timeToLive: .seconds(60))
/// ```
public struct ResolvedAddresses: Sendable, Hashable {
    /// The addresses, in the order to try them.
    public var addresses: [SocketAddress]
    /// How long the answer may be reused: the smallest TTL of the records it came from.
    public var timeToLive: Duration

    /// An answer of `addresses`, valid for `timeToLive`.
    ///
    /// ```swift
    /// let answer = ResolvedAddresses(addresses: [address], timeToLive: .seconds(60))
    /// ```
    public init(addresses: [SocketAddress], timeToLive: Duration) {
        self.addresses = addresses
        self.timeToLive = timeToLive
    }
}

import Foundation

/// Where a transport's connectors get a host's addresses: a numeric host as it is, otherwise its
/// ``AddressLookup`` (the system's resolver on the connector's loop), one family at a time.
///
/// ```swift
/// let resolver = HostResolver(lookup: SystemLookup())
/// resolver.resolve(host: "example.com", port: 443, family: .ipv6, on: loop) { result in print(result) }
/// ```
final class HostResolver: Sendable {
    private let lookup: any AddressLookup

    /// A resolver that asks `lookup` what it does not know.
    init(lookup: any AddressLookup = SystemLookup()) {
        self.lookup = lookup
    }

    /// The addresses of `host` when it needs no lookup (an IP literal, `localhost`); nil when it needs one.
    ///
    /// - Returns: The failure of a host that looks numeric but is no address (`300.1.2.3`).
    func addressesWithoutLookup(host: String, port: Int) -> Result<[SocketAddress]?, NetworkSocket.Failure> {
        Result { () throws(NetworkSocket.Failure) in try NetworkSocket.addressesWithoutLookup(host: host, port: port) }
    }

    /// Asks for `host`'s addresses of `family`; `completion` runs once on `loop` (possibly before this returns).
    /// Called on `loop`'s thread.
    func resolve(
        host: String, port: Int, family: SocketAddress.Family, on loop: EventLoop,
        completion: @escaping (Result<ResolvedAddresses, ResolutionFailure>) -> Void
    ) {
        lookup.resolve(host: host, port: port, family: family, on: loop, completion: completion)
    }
}

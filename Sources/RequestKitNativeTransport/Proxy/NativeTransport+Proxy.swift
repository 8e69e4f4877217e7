import Foundation
import RequestKitConnect
import RequestKitModel

extension NativeTransport {
    /// The proxy route of a request to `url`, or nil when it goes straight to its origin. For a `socks5` proxy
    /// (the transport looks names up), the origin's address is found as a direct connection's is: the request's DNS
    /// overrides, then the transport's, then its DNS cache and its resolver, on an event loop.
    ///
    /// - Throws: ``RequestError`` when the proxy setting cannot be used, or when the origin's name does not resolve.
    nonisolated(nonsending) func proxyRoute(
        for request: TransferRequest, to url: HTTPURL
    ) async throws(RequestError) -> ProxyRoute? {
        let origin = try HTTP1RequestEncoder.target(
            of: url.url, authority: request.built?.authority, tls: tlsConfiguration(for: url)
        ).key
        guard let server = try proxySelection.server(host: origin.host, isSecure: url.isSecure) else { return nil }
        var originAddress: String?
        if server.kind == .socks5, NoProxyList.ipv4(Substring(origin.host)) == nil,
            NoProxyList.ipv6(Substring(origin.host)) == nil
        {
            originAddress = try await address(of: origin.host, port: origin.port, overrides: request.dnsOverrides)
        }
        return ProxyRoute(
            server: server, proxyTLS: server.kind == .https ? tlsSettings : nil, originAddress: originAddress)
    }

    /// The address of `host` and `port` to give a SOCKS5 proxy, as text: the first that `overrides` (a request's)
    /// or the transport's own overrides fix, else the first IPv4 address the transport's resolver gives (from its
    /// cache while fresh), else the first IPv6 one. One address goes to the proxy, so there is no race; IPv4 comes
    /// first as the family a proxy reaches most surely.
    private nonisolated(nonsending) func address(
        of host: String, port: Int, overrides: DNSOverrides
    ) async throws(RequestError) -> String {
        let key = ConnectionKey(host: host, port: port)
        let resolver = try pool().resolver
        var found = overrides.addresses(host: host, port: port)
        if found == nil {
            switch resolver.addressesWithoutLookup(host: host, port: port) {
            case .success(let known): found = known
            case .failure(let failure): throw Self.requestError(for: failure, idleTimeout: 0, key: key)
            }
        }
        var failures: [ResolutionFailure] = []
        if found == nil {
            let loop: EventLoop
            do {
                loop = try EventLoopGroup.shared(loops: configuration.eventLoopCount).next()
            } catch {
                throw RequestError.transport(error, detail: "NativeTransport could not start its event loop")
            }
            for family in [SocketAddress.Family.ipv4, .ipv6] {
                switch await Self.resolve(host, port: port, family: family, with: resolver, on: loop) {
                case .success(let addresses) where !addresses.isEmpty: found = addresses
                case .success: continue
                case .failure(let failure): failures.append(failure)
                }
                if found != nil { break }
            }
        }
        guard let address = found?.first(where: { !$0.host.isEmpty }) else {
            let reason =
                failures.isEmpty
                ? "no address to give the SOCKS5 proxy"
                : failures.map(\.message).joined(separator: "; ")
            throw Self.requestError(for: NetworkSocket.Failure.hostNotFound(reason), idleTimeout: 0, key: key)
        }
        return address.host
    }

    /// `host`'s addresses of `family` from `resolver` (its cache, or a query), asked on `loop`.
    private nonisolated(nonsending) static func resolve(
        _ host: String, port: Int, family: SocketAddress.Family, with resolver: HostResolver, on loop: EventLoop
    ) async -> Result<[SocketAddress], ResolutionFailure> {
        await withCheckedContinuation { continuation in
            loop.execute {
                resolver.resolve(host: host, port: port, family: family, on: loop) { result in
                    continuation.resume(returning: result)
                }
            }
        }
    }
}

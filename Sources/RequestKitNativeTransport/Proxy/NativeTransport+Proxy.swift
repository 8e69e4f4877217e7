import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension NativeTransport {
    /// The proxy route of a request to `url`, or nil when it goes straight to its origin. For a `socks5` proxy
    /// (the transport looks names up), the origin's name is looked up here, on a short-lived thread of its own.
    ///
    /// - Throws: ``RequestError`` when the proxy setting cannot be used, or when the origin's name does not resolve.
    func proxyRoute(for request: TransferRequest, to url: HTTPURL) async throws(RequestError) -> ProxyRoute? {
        let host = try HTTP1RequestEncoder.target(of: url.url, authority: request.built?.authority).key.host
        guard let server = try proxySelection.server(host: host, isSecure: url.isSecure) else { return nil }
        var originAddress: String?
        if server.kind == .socks5, NoProxyList.ipv4(Substring(host)) == nil,
            NoProxyList.ipv6(Substring(host)) == nil
        {
            originAddress = try await Self.numericAddress(of: host)
        }
        return ProxyRoute(
            server: server, proxyTLS: server.kind == .https ? tlsSettings : nil, originAddress: originAddress)
    }

    /// The first address `host` resolves to, as text; looked up on a thread of its own, since a lookup blocks.
    private static func numericAddress(of host: String) async throws(RequestError) -> String {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<String, RequestError>, Never>) in
            do {
                try DetachedThread.start(name: "RequestKit.DNS") {
                    continuation.resume(returning: lookUp(host))
                }
            } catch {
                continuation.resume(
                    returning: .failure(RequestError.transport(error, detail: "no thread to look up \(host)")))
            }
        }
        return try result.get()
    }

    private static func lookUp(_ host: String) -> Result<String, RequestError> {
        do throws(ResolutionFailure) {
            guard let address = try NetworkSocket.resolve(host: host, port: 0).first(where: { !$0.host.isEmpty })
            else {
                return .failure(
                    RequestError.connectionFailed(
                        .hostNotFound, host: host, port: nil, underlyingError: URLError(.cannotFindHost),
                        reason: "no address to give the SOCKS5 proxy"))
            }
            return .success(address.host)
        } catch {
            return .failure(
                NativeTransport.requestError(
                    for: NetworkSocket.Failure.hostNotFound(error.message), idleTimeout: 0,
                    key: ConnectionKey(host: host, port: 0)))
        }
    }
}

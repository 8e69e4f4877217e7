import Foundation
import RequestKitModel

/// Base URLs whose requests go through a Unix domain socket instead of TCP: a client option for a local daemon or
/// sidecar whose API has ordinary URLs (`http://docker/v1.43/info` through `/var/run/docker.sock`).
///
/// A request matches a base URL with the same scheme, host and port whose path is a whole-segment prefix of the
/// request's; the longest match wins.
///
/// ```swift
/// var routes = UnixSocketRoutes()
/// try routes.route(URL(string: "http://docker")!, through: "/var/run/docker.sock")
/// routes.socketAddress(for: URL(string: "http://docker/v1.43/info")!)   // unix:/var/run/docker.sock
/// ```
public struct UnixSocketRoutes: Sendable, Hashable {
    private struct Route: Sendable, Hashable {
        let scheme: String
        let host: String
        let port: Int?
        let pathSegments: [Substring]
        let address: SocketAddress
    }

    private var routes: [Route] = []

    /// No routes: every request goes over TCP.
    ///
    /// ```swift
    /// var routes = UnixSocketRoutes()
    /// ```
    public init() {}

    /// Whether there are none.
    ///
    /// ```swift
    /// if routes.isEmpty { print("TCP only") }
    /// ```
    public var isEmpty: Bool { routes.isEmpty }

    /// Sends every request under `baseURL` through the socket at `socketPath` (replacing an earlier route of the
    /// same base URL).
    ///
    /// ```swift
    /// try routes.route(URL(string: "http://localhost/api")!, through: "/run/app.sock")
    /// ```
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` when the base URL is not an `http`
    ///   or `https` URL with a host, or the path cannot be a socket address.
    public mutating func route(_ baseURL: URL, through socketPath: String) throws(RequestError) {
        let address = try SocketAddress(unixPath: socketPath)
        guard let key = Self.key(of: baseURL) else {
            throw .invalidRequest([
                RequestProblem(
                    .malformedURL,
                    "The base URL \"\(baseURL.absoluteString)\" of a Unix socket route is not an http or https URL "
                        + "with a host")
            ])
        }
        let route = Route(
            scheme: key.scheme, host: key.host, port: key.port, pathSegments: key.pathSegments, address: address)
        routes.removeAll {
            $0.scheme == route.scheme && $0.host == route.host && $0.port == route.port
                && $0.pathSegments == route.pathSegments
        }
        routes.append(route)
    }

    /// The socket a request to `url` goes through; nil when no route matches.
    ///
    /// ```swift
    /// if let socket = routes.socketAddress(for: url) { print("through \(socket)") }
    /// ```
    public func socketAddress(for url: URL) -> SocketAddress? {
        guard let key = Self.key(of: url) else { return nil }
        let matching = routes.filter {
            $0.scheme == key.scheme && $0.host == key.host && $0.port == key.port
                && key.pathSegments.starts(with: $0.pathSegments)
        }
        return matching.max { $0.pathSegments.count < $1.pathSegments.count }?.address
    }

    /// Scheme, host and effective port (the scheme's default when none), and the path's segments.
    private static func key(
        of url: URL
    ) -> (scheme: String, host: String, port: Int?, pathSegments: [Substring])? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let host = components.percentEncodedHost?.lowercased(), !host.isEmpty
        else { return nil }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true)
        return (scheme, host, port, segments)
    }
}

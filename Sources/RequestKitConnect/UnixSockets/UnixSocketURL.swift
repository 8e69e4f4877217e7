import Foundation
import RequestKitModel

/// An `http+unix://` (or `https+unix://`) URL: the Unix domain socket's path, percent-encoded, stands where the
/// host would, and the path and query are the request's (the Docker API's convention, as requests-unixsocket and
/// curl's users write it).
///
/// ```swift
/// let url = try UnixSocketURL(URL(string: "http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/containers/json?all=1")!)
/// url.socketPath      // "/var/run/docker.sock"
/// url.requestTarget   // "/v1.43/containers/json?all=1"
/// ```
public struct UnixSocketURL: Sendable, Hashable {
    /// The socket's path in the file system.
    public let socketPath: String
    /// The socket's address, its length checked.
    public let socketAddress: SocketAddress
    /// The path and query the request asks for (`/` when the URL has no path).
    public let requestTarget: String
    /// Whether the connection speaks TLS over the socket (`https+unix`).
    public let isSecure: Bool

    /// The schemes of Unix socket URLs.
    ///
    /// ```swift
    /// if UnixSocketURL.schemes.contains(url.scheme ?? "") { print("a Unix socket") }
    /// ```
    public static let schemes: Set<String> = ["http+unix", "https+unix"]

    /// Parses and checks a Unix socket URL.
    ///
    /// ```swift
    /// let url = try UnixSocketURL(URL(string: "http+unix://%2Ftmp%2Fapp.sock/health")!)
    /// ```
    /// - Parameter url: An `http+unix` or `https+unix` URL whose host is the percent-encoded socket path.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest``: another scheme
    ///   (``RequestProblem/Kind/unsupportedScheme``), no socket path, a port or user name, a path that does not
    ///   decode (``RequestProblem/Kind/malformedURL``), or one the system's socket address cannot hold
    ///   (``RequestProblem/Kind/invalidSocketPath``).
    public init(_ url: URL) throws(RequestError) {
        func invalid(_ kind: RequestProblem.Kind, _ why: String) -> RequestError {
            .invalidRequest([RequestProblem(kind, "The Unix socket URL \"\(url.absoluteString)\" \(why)")])
        }
        let scheme = url.scheme?.lowercased() ?? ""
        guard Self.schemes.contains(scheme) else {
            throw invalid(.unsupportedScheme, "does not start with http+unix:// or https+unix://")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw invalid(.malformedURL, "cannot be parsed")
        }
        guard let encoded = components.percentEncodedHost, !encoded.isEmpty else {
            throw invalid(.malformedURL, "has no socket path (percent-encode it as the host: %2Fvar%2Frun%2Fapp.sock)")
        }
        guard components.port == nil, components.percentEncodedUser == nil else {
            throw invalid(.malformedURL, "has a port or a user name, which a Unix socket has not")
        }
        guard let path = encoded.removingPercentEncoding else {
            throw invalid(.malformedURL, "has a socket path that is not percent-encoded UTF-8")
        }
        socketAddress = try SocketAddress(unixPath: path)
        socketPath = path
        isSecure = scheme == "https+unix"
        let requestPath = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        requestTarget = components.percentEncodedQuery.map { "\(requestPath)?\($0)" } ?? requestPath
    }
}

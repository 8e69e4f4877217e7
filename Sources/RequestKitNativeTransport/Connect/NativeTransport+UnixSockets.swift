import Foundation
import RequestKitConnect
import RequestKitModel

extension NativeTransport {
    /// The Unix domain socket a request to `url` goes through (``Configuration/unixSocketRoutes``); nil for TCP.
    func unixSocket(for url: URL) -> SocketAddress? {
        configuration.unixSocketRoutes.isEmpty ? nil : configuration.unixSocketRoutes.socketAddress(for: url)
    }

    /// An `http+unix` or `https+unix` URL: its socket, and its path and query written to `localhost`, the host its
    /// `Host` header and (over TLS) the server's certificate name.
    ///
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` when the URL names no usable socket
    ///   path (see ``UnixSocketURL``).
    static func unixSocketURL(_ url: URL) throws(RequestError) -> HTTPURL {
        let parsed = try UnixSocketURL(url)
        let scheme = parsed.isSecure ? "https" : "http"
        guard let wire = URL(string: "\(scheme)://localhost\(parsed.requestTarget)") else {
            throw .invalidRequest([
                RequestProblem(
                    .malformedURL, "The Unix socket URL \"\(url.absoluteString)\" has a path that is not a URL's")
            ])
        }
        return HTTPURL(url: url, isSecure: parsed.isSecure, unixSocket: parsed.socketAddress, wireURL: wire)
    }
}

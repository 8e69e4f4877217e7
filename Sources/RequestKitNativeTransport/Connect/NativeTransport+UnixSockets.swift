import Foundation

extension NativeTransport {
    /// The Unix domain socket a request to `url` goes through (``Configuration/unixSocketRoutes``); nil for TCP.
    func unixSocket(for url: URL) -> SocketAddress? {
        configuration.unixSocketRoutes.isEmpty ? nil : configuration.unixSocketRoutes.socketAddress(for: url)
    }
}

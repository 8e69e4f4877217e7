import Foundation
import RequestKitModel
import RequestKitSockets

/// The dialer of a WebSocket connection: another dialer's sockets and streams, except that a plain `ws://`
/// connection through an HTTP proxy goes through a `CONNECT` tunnel, as `wss://` does, where a plain request would
/// be sent to the proxy in absolute form: a proxy forwards an upgraded connection only inside a tunnel.
///
/// ```swift
/// let connector = Connector(
///     key: key, loop: loop, dialer: WebSocketDialer(SystemDialer()), resolution: resolver, connectTimeout: 10,
///     deadline: nil, negotiatesHTTP2: false
/// ) { outcome in print(outcome) }
/// ```
struct WebSocketDialer: SocketDialer {
    let base: any SocketDialer

    init(_ base: any SocketDialer) { self.base = base }

    func startConnecting(
        to address: SocketAddress
    ) throws(NetworkSocket.Failure) -> (descriptor: Int32, isConnected: Bool) {
        try base.startConnecting(to: address)
    }

    func connectionError(_ descriptor: Int32) -> POSIXError? { base.connectionError(descriptor) }

    func makeStream(descriptor: Int32, key: ConnectionKey) throws -> any ByteStream {
        if let route = key.proxy, !key.isTunnelled, base is SystemDialer {
            return try ProxyTunnelByteStream(descriptor: descriptor, key: key, route: route)
        }
        return try base.makeStream(descriptor: descriptor, key: key)
    }

    func localAddress(of descriptor: Int32) -> String? { base.localAddress(of: descriptor) }

    func close(_ descriptor: Int32) { base.close(descriptor) }
}

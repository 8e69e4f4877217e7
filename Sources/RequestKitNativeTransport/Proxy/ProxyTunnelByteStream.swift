import Foundation
import RequestKitModel
import RequestKitSockets

/// A ``ByteStream`` that first opens a tunnel to the origin through a proxy (``ProxyConnectHandshake`` or
/// ``SOCKS5Handshake``), then carries the request: over TLS to the origin (SNI and verification against the
/// origin's name) when the origin is `https`, in the clear otherwise.
///
/// To an `https` proxy, the tunnel itself runs over TLS to the proxy (verified against the proxy's name), and TLS
/// to the origin runs inside it: its records are the tunnel's data (``TLSByteStream/init(over:host:port:configuration:)``).
///
/// Its ``handshake()`` drives both steps without blocking, so the connection bounds them by its connect timeout
/// as it does a TLS handshake. Proxy credentials are written during the tunnel's handshake alone, never inside it.
///
/// ```swift
/// let stream = try ProxyTunnelByteStream(descriptor: fd, key: key)
/// while case .wouldBlock(let interest) = try stream.handshake() { waitUntil(fd, is: interest) }
/// ```
final class ProxyTunnelByteStream: ByteStream {
    private enum Exchange {
        case connect(ProxyConnectHandshake)
        case socks(SOCKS5Handshake)
    }

    private let socket: SocketByteStream
    /// The stream to the proxy: TLS to an `https` proxy, nil to others (the socket itself).
    private let proxyTLS: (any ByteStream)?
    private let key: ConnectionKey
    private let route: ProxyRoute
    private var exchange: Exchange
    private var pending: [UInt8]
    private var pendingOffset = 0
    /// The stream the request goes over once the tunnel is open: TLS to the origin, or the socket itself.
    private var carrier: (any ByteStream)?

    /// Takes ownership of `descriptor`, connected to `key`'s proxy.
    ///
    /// - Throws: ``RequestError`` when the origin cannot be named to the proxy, or TLS to an `https` proxy cannot be
    ///   set up; `descriptor` is then still the caller's to close.
    init(descriptor: Int32, key: ConnectionKey, route: ProxyRoute) throws {
        // The exchange first: when it throws, the descriptor is still the caller's to close (no stream owns it).
        if route.server.isHTTP {
            let handshake = ProxyConnectHandshake(proxy: route.server, host: key.host, port: key.port)
            exchange = .connect(handshake)
            pending = handshake.request
        } else {
            let handshake = try SOCKS5Handshake(
                proxy: route.server, host: route.originAddress ?? key.host, port: key.port)
            exchange = .socks(handshake)
            pending = handshake.greeting
        }
        self.key = key
        self.route = route
        let socket = SocketByteStream(descriptor: descriptor)
        self.socket = socket
        // A TLSByteStream that cannot be made leaves the descriptor to its caller, and the socket gave it up.
        proxyTLS = try Self.proxyTLS(over: socket, route: route)
    }

    /// TLS to an `https` proxy, run by the socket: nil for other proxies.
    private static func proxyTLS(over socket: SocketByteStream, route: ProxyRoute) throws -> (any ByteStream)? {
        #if canImport(COpenSSL)
        if let settings = route.proxyTLS {
            return try TLSByteStream(
                descriptor: socket.relinquish(), host: route.server.host, port: route.server.port,
                configuration: settings.configuration)
        }
        #endif
        return nil
    }

    /// The stream the tunnel is opened over: TLS to the proxy, or the socket.
    private var proxyStream: any ByteStream { proxyTLS ?? socket }

    var descriptor: Int32 { carrier?.descriptor ?? proxyStream.descriptor }

    /// The step the handshake is at, named for the message of a timeout: the TLS handshake with an `https` proxy,
    /// the proxy's answer to `CONNECT`, a step of the SOCKS5 handshake, or the TLS handshake with the origin inside
    /// the open tunnel.
    var pendingStep: String {
        let origin = "\(key.host) port \(key.port)"
        if carrier != nil { return "the TLS handshake with \(origin) (through the \(route.server.place))" }
        if let proxyTLS, proxyTLS.negotiatedTLS == nil {
            return "the TLS handshake with the \(route.server.place) (for \(origin))"
        }
        switch exchange {
        case .connect(let handshake):
            return "the CONNECT to \(origin) through the \(route.server.place) (waiting for \(handshake.awaited))"
        case .socks(let handshake):
            return
                "the SOCKS5 handshake for \(origin) with the \(route.server.place) (waiting for \(handshake.awaited))"
        }
    }

    func handshake() throws -> ByteStreamResult {
        if let carrier { return try carrier.handshake() }
        do {
            var buffer = [UInt8](repeating: 0, count: 512)
            while true {
                if pendingOffset < pending.count {
                    let result = try pending[pendingOffset...].withUnsafeBytes { try proxyStream.write($0) }
                    switch result {
                    case .transferred(let count): pendingOffset += count
                    case .wouldBlock(let interest): return .wouldBlock(interest)
                    case .endOfStream: throw closedByProxy()
                    }
                    continue
                }
                let result = try buffer.withUnsafeMutableBytes { try proxyStream.read(into: $0) }
                switch result {
                case .wouldBlock(let interest): return .wouldBlock(interest)
                case .endOfStream: throw closedByProxy()
                case .transferred(let count):
                    if try advance(buffer[0..<count]) {
                        let carrier = try makeCarrier()
                        self.carrier = carrier
                        return try carrier.handshake()
                    }
                }
            }
        } catch let error as POSIXError {
            let failure = RequestError.connectionFailure(for: error.code) ?? .connectionReset
            throw RequestError.connectionFailed(
                failure, host: route.server.host, port: route.server.port, underlyingError: error,
                reason: "the proxy for \(key.host) port \(key.port)")
        }
    }

    /// Feeds the proxy's bytes to the handshake: true once the tunnel is open.
    private func advance(_ bytes: ArraySlice<UInt8>) throws -> Bool {
        switch exchange {
        case .connect(var handshake):
            let step = try handshake.received(bytes)
            exchange = .connect(handshake)
            return step == .established
        case .socks(var handshake):
            let step = try handshake.received(bytes)
            exchange = .socks(handshake)
            switch step {
            case .send(let bytes):
                pending = bytes
                pendingOffset = 0
                return false
            case .needsMore: return false
            case .established: return true
            }
        }
    }

    private func makeCarrier() throws -> any ByteStream {
        #if canImport(COpenSSL)
        if let tls = key.tls, let proxyTLS {
            // TLS inside TLS: the origin's session runs over the proxy's; closing it closes the proxy's.
            return try TLSByteStream(
                over: proxyTLS, host: key.host, port: key.port, configuration: tls.configuration)
        }
        if let tls = key.tls {
            let descriptor = socket.relinquish()
            do {
                return try TLSByteStream(
                    descriptor: descriptor, host: key.host, port: key.port, configuration: tls.configuration)
            } catch {
                SocketByteStream(descriptor: descriptor).close()
                throw error
            }
        }
        #endif
        return proxyStream
    }

    private func closedByProxy() -> RequestError {
        RequestError.connectionFailed(
            .proxyFailed, host: route.server.host, port: route.server.port, underlyingError: POSIXError(.ECONNRESET),
            reason: "the proxy closed the connection before the tunnel to \(key.host) port \(key.port) was open")
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> ByteStreamResult {
        guard let carrier else { throw POSIXError(.ENOTCONN) }
        return try carrier.read(into: buffer)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws -> ByteStreamResult {
        guard let carrier else { throw POSIXError(.ENOTCONN) }
        return try carrier.write(bytes)
    }

    var hasBufferedBytes: Bool { carrier?.hasBufferedBytes ?? false }

    var isEndUnconfirmed: Bool { carrier?.isEndUnconfirmed ?? false }

    /// What TLS with the origin negotiated, for the request's metrics; nil for an `http` origin, whose requests go
    /// in the clear to the proxy (TLS to an `https` proxy is the proxy's, not the origin's).
    var negotiatedTLS: RequestMetrics.TLS? { key.tls == nil ? nil : carrier?.negotiatedTLS }

    var negotiatedApplicationProtocol: String? { key.tls == nil ? nil : carrier?.negotiatedApplicationProtocol }

    func close() {
        carrier?.close()
        proxyTLS?.close()
        socket.close()
    }
}

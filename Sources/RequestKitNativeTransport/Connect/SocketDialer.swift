import Foundation
import RequestKitConnect
import RequestKitModel
import RequestKitSockets

/// The system calls a ``Connector`` makes to open a connection: starting a non-blocking connection to one address,
/// reading how it ended, and layering the byte stream (TLS, a proxy's tunnel) over the connected socket. The
/// system's (``SystemDialer``) in use; a test's gives scripted outcomes and scripted byte streams, so that connecting
/// runs with no socket and no clock. Where addresses come from is the ``HostResolver``'s concern.
///
/// ```swift
/// let (descriptor, isConnected) = try dialer.startConnecting(to: address)
/// let stream = try dialer.makeStream(descriptor: descriptor, key: key)
/// ```
protocol SocketDialer: Sendable {
    /// Opens a non-blocking socket and starts connecting it to `address`: its descriptor, and whether it is connected
    /// already (otherwise it becomes writable when the attempt ends, and ``connectionError(_:)`` says how).
    ///
    /// - Throws: ``NetworkSocket/Failure`` when the socket cannot be made or the attempt fails at once.
    func startConnecting(
        to address: SocketAddress
    ) throws(NetworkSocket.Failure) -> (
        descriptor: Int32, isConnected: Bool
    )

    /// How a connection attempt that made the socket writable ended: nil when it connected.
    func connectionError(_ descriptor: Int32) -> POSIXError?

    /// The byte stream over a connected socket for `key` (TLS, a proxy's tunnel, or plain TCP), which owns the
    /// descriptor from then on.
    ///
    /// - Throws: What making the stream throws; the descriptor is then still the caller's.
    func makeStream(descriptor: Int32, key: ConnectionKey) throws -> any ByteStream

    /// This side's address of a connected socket, for the metrics.
    func localAddress(of descriptor: Int32) -> String?

    /// Closes a descriptor no stream owns.
    func close(_ descriptor: Int32)
}

/// The system's sockets: the socket calls of ``NetworkSocket`` (with the local binding and TCP keep-alive of the
/// transport's configuration), and ``NativeTransport``'s streams (TLS over OpenSSL, proxies' tunnels).
///
/// ```swift
/// let (descriptor, isConnected) = try SystemDialer().startConnecting(to: address)
/// ```
struct SystemDialer: SocketDialer {
    /// The local address or interface every TCP socket leaves from; nil for the system's choice.
    let binding: LocalBinding?
    /// The keep-alive probes of every TCP socket; nil for the system's default.
    let keepAlive: TCPKeepAlive?

    init(binding: LocalBinding? = nil, keepAlive: TCPKeepAlive? = nil) {
        self.binding = binding
        self.keepAlive = keepAlive
    }

    func startConnecting(
        to address: SocketAddress
    ) throws(NetworkSocket.Failure) -> (descriptor: Int32, isConnected: Bool) {
        try NetworkSocket.startConnecting(to: address, binding: binding, keepAlive: keepAlive)
    }

    func connectionError(_ descriptor: Int32) -> POSIXError? { NetworkSocket.connectionError(descriptor) }

    func makeStream(descriptor: Int32, key: ConnectionKey) throws -> any ByteStream {
        try NativeTransport.makeStream(descriptor: descriptor, key: key)
    }

    func localAddress(of descriptor: Int32) -> String? { NetworkSocket.localAddress(of: descriptor) }

    func close(_ descriptor: Int32) { NetworkSocket.close(descriptor) }
}

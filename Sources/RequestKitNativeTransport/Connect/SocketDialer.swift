import Foundation

/// The system calls a ``Connector`` makes to open a connection: resolving a host, starting a non-blocking connection
/// to one address, reading how it ended, and layering the byte stream (TLS, a proxy's tunnel) over the connected
/// socket. The system's (``SystemDialer``) in use; a test's gives scripted answers and scripted byte streams, so that
/// connecting runs with no socket and no clock.
///
/// ```swift
/// let (descriptor, isConnected) = try dialer.startConnecting(to: address)
/// let stream = try dialer.makeStream(descriptor: descriptor, key: key)
/// ```
protocol SocketDialer: Sendable {
    /// The addresses of `host` when it needs no name lookup (an IP literal, `localhost`); nil when it needs one.
    ///
    /// - Throws: ``NetworkSocket/Failure`` when the literal does not resolve.
    func addressesWithoutLookup(host: String, port: Int) throws(NetworkSocket.Failure) -> [NetworkSocket.Address]?

    /// Looks `host` up without blocking the caller, then calls `completion` once, on any thread.
    ///
    /// - Throws: ``NetworkSocket/Failure`` when the lookup cannot start (the system refused a thread).
    func resolve(
        host: String, port: Int,
        completion: @escaping @Sendable (Result<[NetworkSocket.Address], NetworkSocket.Failure>) -> Void
    ) throws(NetworkSocket.Failure)

    /// Opens a non-blocking socket and starts connecting it to `address`: its descriptor, and whether it is connected
    /// already (otherwise it becomes writable when the attempt ends, and ``connectionError(_:)`` says how).
    ///
    /// - Throws: ``NetworkSocket/Failure`` when the socket cannot be made or the attempt fails at once.
    func startConnecting(
        to address: NetworkSocket.Address
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

/// The system's sockets: `getaddrinfo` on a short-lived thread of its own (never the loop or the task pool), the
/// socket calls of ``NetworkSocket``, and ``NativeTransport``'s streams (TLS over OpenSSL, proxies' tunnels).
///
/// ```swift
/// let connector = Connector(
///     key: key, loop: loop, dialer: SystemDialer(), connectTimeout: 10, deadline: nil, negotiatesHTTP2: false
/// ) { outcome in print(outcome) }
/// ```
struct SystemDialer: SocketDialer {
    init() {}

    func addressesWithoutLookup(
        host: String, port: Int
    ) throws(NetworkSocket.Failure) -> [NetworkSocket.Address]? {
        try NetworkSocket.addressesWithoutLookup(host: host, port: port)
    }

    func resolve(
        host: String, port: Int,
        completion: @escaping @Sendable (Result<[NetworkSocket.Address], NetworkSocket.Failure>) -> Void
    ) throws(NetworkSocket.Failure) {
        do {
            try DetachedThread.start(name: "RequestKit.DNS") {
                completion(
                    Result { () throws(NetworkSocket.Failure) in try NetworkSocket.resolve(host: host, port: port) })
            }
        } catch {
            throw .system(error)
        }
    }

    func startConnecting(
        to address: NetworkSocket.Address
    ) throws(NetworkSocket.Failure) -> (descriptor: Int32, isConnected: Bool) {
        try NetworkSocket.startConnecting(to: address)
    }

    func connectionError(_ descriptor: Int32) -> POSIXError? { NetworkSocket.connectionError(descriptor) }

    func makeStream(descriptor: Int32, key: ConnectionKey) throws -> any ByteStream {
        try NativeTransport.makeStream(descriptor: descriptor, key: key)
    }

    func localAddress(of descriptor: Int32) -> String? { NetworkSocket.localAddress(of: descriptor) }

    func close(_ descriptor: Int32) { NetworkSocket.close(descriptor) }
}

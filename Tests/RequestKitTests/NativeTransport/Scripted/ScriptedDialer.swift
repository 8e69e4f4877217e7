import Foundation

@testable import RequestKitNativeTransport
@testable import RequestKitSockets

/// A ``SocketDialer`` with no sockets: each connection attempt takes the next ``Plan`` the test gave it, and a
/// connected attempt's stream is the plan's ``ScriptedByteStream``. Names resolve as the test says (``answers``);
/// IP literals need no lookup, as with the system's.
///
/// ```swift
/// let dialer = ScriptedDialer(readiness: readiness)
/// dialer.plans = [.connects(stream)]
/// ```
final class ScriptedDialer: SocketDialer, @unchecked Sendable {
    // Safe: `lock` guards every mutable field.

    /// What one connection attempt does.
    enum Plan {
        /// Connects at once, with this stream.
        case connects(ScriptedByteStream)
        /// Connects once the loop watches it for writing (the usual non-blocking connect), with this stream.
        case connectsLater(ScriptedByteStream)
        /// Fails at once with this error.
        case fails(POSIXError)
        /// Never finishes: the connect timeout (or the request's) ends it.
        case hangs
    }

    private let lock = NSLock()
    private let readiness: ManualReadiness
    private var queue: [Plan] = []
    private var streams: [Int32: ScriptedByteStream] = [:]
    private var pendingLookups: [@Sendable (Result<[NetworkSocket.Address], NetworkSocket.Failure>) -> Void] = []
    private var nextHanging: Int32 = 2_000_000
    private var scriptedAnswers: [String: Result<[NetworkSocket.Address], NetworkSocket.Failure>] = [:]
    /// How lookups of names end; a name missing here is never answered until ``answerLookups(with:)``.
    var answers: [String: Result<[NetworkSocket.Address], NetworkSocket.Failure>] {
        get { lock.withLock { scriptedAnswers } }
        set { lock.withLock { scriptedAnswers = newValue } }
    }
    /// The addresses connected to, in order.
    private(set) var attempts: [NetworkSocket.Address] = []
    /// The descriptors closed without a stream.
    private(set) var closedDescriptors: [Int32] = []

    init(readiness: ManualReadiness) {
        self.readiness = readiness
    }

    /// The plans of the attempts to come, in order.
    var plans: [Plan] {
        get { lock.withLock { queue } }
        set { lock.withLock { queue = newValue } }
    }

    /// How many attempts were made.
    var attemptCount: Int { lock.withLock { attempts.count } }

    /// Ends the lookups still waiting with `result`.
    func answerLookups(with result: Result<[NetworkSocket.Address], NetworkSocket.Failure>) {
        let waiting = lock.withLock {
            defer { pendingLookups = [] }
            return pendingLookups
        }
        for completion in waiting { completion(result) }
    }

    /// An IPv4 socket address, as the system's resolver writes it.
    static func address(_ host: String = "127.0.0.1", port: Int = 8080) -> NetworkSocket.Address {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        return NetworkSocket.Address(family: AF_INET, bytes: bytes)
    }

    func addressesWithoutLookup(
        host: String, port: Int
    ) throws(NetworkSocket.Failure) -> [NetworkSocket.Address]? {
        try NetworkSocket.addressesWithoutLookup(host: host, port: port)
    }

    func resolve(
        host: String, port: Int,
        completion: @escaping @Sendable (Result<[NetworkSocket.Address], NetworkSocket.Failure>) -> Void
    ) throws(NetworkSocket.Failure) {
        let answer = lock.withLock { () -> Result<[NetworkSocket.Address], NetworkSocket.Failure>? in
            guard let answer = scriptedAnswers[host] else {
                pendingLookups.append(completion)
                return nil
            }
            return answer
        }
        if let answer { completion(answer) }
    }

    func startConnecting(
        to address: NetworkSocket.Address
    ) throws(NetworkSocket.Failure) -> (descriptor: Int32, isConnected: Bool) {
        let plan: Plan? = lock.withLock {
            attempts.append(address)
            return queue.isEmpty ? nil : queue.removeFirst()
        }
        switch plan {
        case .connects(let stream)?:
            register(stream)
            return (stream.descriptor, true)
        case .connectsLater(let stream)?:
            register(stream)
            return (stream.descriptor, false)
        case .fails(let error)?:
            throw .system(error)
        case .hangs?, nil:
            return lock.withLock {
                nextHanging += 1
                return (nextHanging, false)
            }
        }
    }

    private func register(_ stream: ScriptedByteStream) {
        lock.withLock { streams[stream.descriptor] = stream }
        readiness.add(stream)
    }

    func connectionError(_ descriptor: Int32) -> POSIXError? { nil }

    func makeStream(descriptor: Int32, key: ConnectionKey) throws -> any ByteStream {
        guard let stream = lock.withLock({ streams[descriptor] }) else { throw POSIXError(.EBADF) }
        return stream
    }

    func localAddress(of descriptor: Int32) -> String? { "127.0.0.1:50000" }

    func close(_ descriptor: Int32) { lock.withLock { closedDescriptors.append(descriptor) } }
}

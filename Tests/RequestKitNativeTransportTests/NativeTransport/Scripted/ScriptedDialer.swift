import Foundation
import RequestKitModel

@testable import RequestKitConnect
@testable import RequestKitNativeTransport
@testable import RequestKitSockets

/// A ``SocketDialer`` and an ``AddressLookup`` with no sockets and no resolver: each connection attempt takes the
/// next ``Plan`` the test gave its address (``plan(_:for:)``), or else the next of ``plans``; a connected attempt's
/// stream is the plan's ``ScriptedByteStream``. An attempt that ``Plan/hangs`` stays pending until the test ends it
/// (``complete(_:with:)``). Names resolve per family as the test says (``answers``), or wait until it answers
/// (``answer(_:_:with:)``); IP literals need no lookup, as with the system's.
///
/// ```swift
/// let dialer = ScriptedDialer(readiness: readiness)
/// dialer.plans = [.connects(stream)]
/// dialer.plan(.hangs, for: ipv6)
/// ```
final class ScriptedDialer: SocketDialer, AddressLookup, @unchecked Sendable {
    // Safe: `lock` guards every mutable field.

    /// What one connection attempt does.
    enum Plan {
        /// Connects at once, with this stream.
        case connects(ScriptedByteStream)
        /// Connects once the loop watches it for writing (the usual non-blocking connect), with this stream.
        case connectsLater(ScriptedByteStream)
        /// Fails at once with this error.
        case fails(POSIXError)
        /// Fails once the loop watches it for writing, with this error (a refusal the network brings back).
        case failsLater(POSIXError)
        /// Never finishes by itself: the test ends it (``ScriptedDialer/complete(_:with:)``), or a timeout does.
        case hangs
    }

    /// A scripted answer to one lookup.
    typealias Answer = Result<ResolvedAddresses, ResolutionFailure>

    private let lock = NSLock()
    private let readiness: ManualReadiness
    private var queue: [Plan] = []
    private var addressPlans: [SocketAddress: [Plan]] = [:]
    private var streams: [Int32: ScriptedByteStream] = [:]
    /// Attempts that end with an error once writable, by descriptor.
    private var laterErrors: [Int32: POSIXError] = [:]
    /// Hanging attempts, by address, in the order made.
    private var hanging: [SocketAddress: [Int32]] = [:]
    private var pendingLookups: [Lookup: [(Answer) -> Void]] = [:]
    private var nextDescriptor: Int32 = 2_000_000
    private var scriptedAnswers: [String: [SocketAddress.Family: Answer]] = [:]
    private var attempted: [SocketAddress] = []
    private var closed: [Int32] = []
    private var lookups: [Lookup] = []

    /// One lookup: a host and a family.
    struct Lookup: Hashable, CustomStringConvertible {
        let host: String
        let family: SocketAddress.Family
        var description: String { "\(host) \(family == .ipv6 ? "AAAA" : "A")" }
    }

    init(readiness: ManualReadiness) {
        self.readiness = readiness
    }

    /// The plans of the attempts to come whose addresses have none of their own, in order.
    var plans: [Plan] {
        get { lock.withLock { queue } }
        set { lock.withLock { queue = newValue } }
    }

    /// Adds the plan of the next attempt to `address`.
    func plan(_ plan: Plan, for address: SocketAddress) {
        lock.withLock { addressPlans[address, default: []].append(plan) }
    }

    /// How lookups of names end, per host and family; a host or family missing here waits for
    /// ``answer(_:_:with:)``.
    var answers: [String: [SocketAddress.Family: Answer]] {
        get { lock.withLock { scriptedAnswers } }
        set { lock.withLock { scriptedAnswers = newValue } }
    }

    /// The addresses connected to, in order.
    var attempts: [SocketAddress] { lock.withLock { attempted } }

    /// How many attempts were made.
    var attemptCount: Int { lock.withLock { attempted.count } }

    /// The descriptors closed without a stream.
    var closedDescriptors: [Int32] { lock.withLock { closed } }

    /// The lookups asked, in order.
    var lookupsAsked: [Lookup] { lock.withLock { lookups } }

    /// Ends the lookups of `host` and `family` still waiting with `answer`, on the loop that asked.
    func answer(_ host: String, _ family: SocketAddress.Family, with answer: Answer) {
        let waiting = lock.withLock { pendingLookups.removeValue(forKey: Lookup(host: host, family: family)) ?? [] }
        for completion in waiting { completion(answer) }
    }

    /// Ends the oldest hanging attempt to `address` as `plan` says: its socket becomes writable (``Plan/connects``
    /// and ``Plan/connectsLater`` connect with their stream, ``Plan/fails`` and ``Plan/failsLater`` fail).
    func complete(_ address: SocketAddress, with plan: Plan) {
        if case .connects(let stream) = plan { readiness.add(stream) }
        if case .connectsLater(let stream) = plan { readiness.add(stream) }
        let descriptor: Int32? = lock.withLock {
            guard var waiting = hanging[address], !waiting.isEmpty else { return nil }
            let descriptor = waiting.removeFirst()
            hanging[address] = waiting
            switch plan {
            case .connects(let stream), .connectsLater(let stream):
                streams[descriptor] = stream
            case .fails(let error), .failsLater(let error):
                laterErrors[descriptor] = error
            case .hangs:
                return nil
            }
            return descriptor
        }
        if let descriptor { readiness.connectable(descriptor) }
    }

    /// An answer of `addresses`, valid for `timeToLive`.
    static func found(_ addresses: [SocketAddress], timeToLive: Duration = .seconds(60)) -> Answer {
        .success(ResolvedAddresses(addresses: addresses, timeToLive: timeToLive))
    }

    /// An IP address and port; the test's own numeric text, so it always parses.
    static func address(_ ip: String = "127.0.0.1", port: Int = 8080) -> SocketAddress {
        guard let address = SocketAddress(ip: ip, port: port) else { preconditionFailure("\(ip) is not numeric") }
        return address
    }

    func resolve(
        host: String, port: Int, family: SocketAddress.Family, on loop: EventLoop,
        completion: @escaping (Answer) -> Void
    ) {
        let lookup = Lookup(host: host, family: family)
        let answer = lock.withLock { () -> Answer? in
            lookups.append(lookup)
            guard let answer = scriptedAnswers[host]?[family] else {
                pendingLookups[lookup, default: []].append { answer in loop.execute { completion(answer) } }
                return nil
            }
            return answer
        }
        if let answer { completion(answer) }
    }

    func startConnecting(
        to address: SocketAddress
    ) throws(NetworkSocket.Failure) -> (descriptor: Int32, isConnected: Bool) {
        let plan: Plan? = lock.withLock {
            attempted.append(address)
            if var own = addressPlans[address], !own.isEmpty {
                let plan = own.removeFirst()
                addressPlans[address] = own
                return plan
            }
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
        case .failsLater(let error)?:
            let descriptor = lock.withLock {
                nextDescriptor += 1
                laterErrors[nextDescriptor] = error
                return nextDescriptor
            }
            readiness.connectable(descriptor)
            return (descriptor, false)
        case .hangs?, nil:
            return lock.withLock {
                nextDescriptor += 1
                hanging[address, default: []].append(nextDescriptor)
                return (nextDescriptor, false)
            }
        }
    }

    private func register(_ stream: ScriptedByteStream) {
        lock.withLock { streams[stream.descriptor] = stream }
        readiness.add(stream)
    }

    func connectionError(_ descriptor: Int32) -> POSIXError? { lock.withLock { laterErrors[descriptor] } }

    func makeStream(descriptor: Int32, key: ConnectionKey) throws -> any ByteStream {
        guard let stream = lock.withLock({ streams[descriptor] }) else { throw POSIXError(.EBADF) }
        return stream
    }

    func localAddress(of descriptor: Int32) -> String? { "127.0.0.1:50000" }

    func close(_ descriptor: Int32) { lock.withLock { closed.append(descriptor) } }
}

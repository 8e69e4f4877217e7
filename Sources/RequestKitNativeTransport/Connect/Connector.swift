import Foundation
import RequestKitConnect
import RequestKitModel
import RequestKitSockets

/// Opens one connection on an event loop: races the host's addresses of both families to a connected socket (RFC
/// 8305: several sockets in flight, the first connected wins and the others close), runs the stream's handshakes (a
/// proxy's tunnel, TLS and ALPN), and hands over a ready ``ByteStream`` with the protocol agreed. The pool then makes
/// an ``HTTP1Connection`` or an ``HTTP2Connection`` of it: a connection starts with bytes, never with DNS.
///
/// A shell around its ``ConnectorStateMachine``: answers, readiness and timers go in as events, and every action
/// comes out through ``run(_:)``. The addresses come from its ``HostResolver``, the system calls are its
/// ``SocketDialer``'s. The connect timeout bounds the race (lookups included), then the handshakes; the request's
/// deadline bounds the whole.
///
/// Its loop owns it: ``start()`` and every step run on the loop's thread; ``cancel()`` may come from any thread.
///
/// ```swift
/// let connector = Connector(
///     key: key, loop: loop, dialer: dialer, resolution: resolver, connectTimeout: 10, deadline: nil,
///     negotiatesHTTP2: true
/// ) { outcome in
///     if case .opened(let opened) = outcome { print(opened.speaksHTTP2) }
/// }
/// loop.execute { connector.start() }
/// ```
final class Connector: EventLoopHandler, @unchecked Sendable {
    // Safe: every mutable field is only touched on `loop`'s thread (``cancel()`` hops onto it).

    /// A connection, ready for its first request.
    struct Opened {
        /// The stream, connected and past its handshakes; it owns the descriptor.
        let stream: any ByteStream
        /// Its addresses, TLS parameters and protocol, for every job's metrics.
        let facts: ConnectionFacts
        /// Whether it speaks HTTP/2 (TLS's ALPN chose `h2`, or the policy says the server speaks h2c).
        let speaksHTTP2: Bool
    }

    /// How a connector ended.
    enum Outcome {
        /// The connection is open.
        case opened(Opened)
        /// No connection could be opened: the failure, as a job reports it.
        case failed(RequestJob.Outcome)
    }

    /// When each phase began and ended, in loop-clock nanoseconds (0: never), for the first job's metrics.
    struct Times: Sendable, Equatable {
        var lookupStart: UInt64 = 0
        var lookupEnd: UInt64 = 0
        var connectStart: UInt64 = 0
        var connectEnd: UInt64 = 0
        var handshakeStart: UInt64 = 0
        var handshakeEnd: UInt64 = 0
        /// Every address tried and how each ended.
        var addressAttempts: [ConnectAttemptRecord] = []
    }

    let key: ConnectionKey
    let loop: EventLoop
    private let dialer: any SocketDialer
    private let resolution: HostResolver
    private let connectTimeout: Double
    private let deadline: UInt64?
    /// The request's timeout in seconds, for the message when its deadline passes.
    private let requestTimeout: Double
    private let negotiatesHTTP2: Bool
    private let raceConfiguration: HappyEyeballsStateMachine.Configuration
    private let onEnd: (Outcome) -> Void
    private var machine: ConnectorStateMachine
    /// The sockets of the attempts under way, by attempt, before a stream owns one.
    private var attempts: [ConnectorStateMachine.AttemptID: Int32] = [:]
    /// The attempts whose sockets the loop watches.
    private var registered: Set<ConnectorStateMachine.AttemptID> = []
    /// The winning attempt's descriptor, once the handshakes run over it; -1 before.
    private var descriptor: Int32 = -1
    private var stream: (any ByteStream)?
    private var isRegistered = false
    private var address: SocketAddress?
    private var raceTimer: LoopTimer?
    private var stepTimer: LoopTimer?
    private var deadlineTimer: LoopTimer?
    /// Events that came while actions ran (a socket that connected or failed at once, an answer the cache had): fed
    /// to the machine once the actions before them are done, so that it never hears of one in the middle of a step.
    private var settled: [Settled] = []
    private var isRunning = false
    /// The families whose answers are still awaited, for the lookup's end in the metrics.
    private var pendingFamilies: Set<SocketAddress.Family> = []
    /// The error of a failed handshake, which the machine does not hold.
    private var handshakeError: (any Error)?
    /// When each phase began and ended.
    private(set) var times = Times()

    /// A connector for `key` on `loop`, which calls `onEnd` once, on the loop, when it ends.
    ///
    /// - Parameters:
    ///   - resolution: Where the host's addresses come from (overrides, the cache, the resolver).
    ///   - connectTimeout: How long, in seconds, the race to a connected socket may take (lookups included), and
    ///     then the handshakes.
    ///   - deadline: When the request it opens for gives up (loop-clock nanoseconds); nil for never.
    ///   - requestTimeout: That request's timeout in seconds, for the message when the deadline passes.
    ///   - negotiatesHTTP2: Whether the connection may speak HTTP/2: offered over TLS, or spoken without asking.
    ///   - race: The resolution and attempt delays of the address race.
    init(
        key: ConnectionKey, loop: EventLoop, dialer: any SocketDialer, resolution: HostResolver,
        connectTimeout: Double, deadline: UInt64?, requestTimeout: Double = 0, negotiatesHTTP2: Bool,
        race: HappyEyeballsStateMachine.Configuration = .init(), onEnd: @escaping (Outcome) -> Void
    ) {
        self.requestTimeout = requestTimeout
        self.key = key
        self.loop = loop
        self.dialer = dialer
        self.resolution = resolution
        self.connectTimeout = connectTimeout
        self.deadline = deadline
        self.negotiatesHTTP2 = negotiatesHTTP2
        self.raceConfiguration = race
        self.onEnd = onEnd
        machine = ConnectorStateMachine(host: key.connectHost, port: key.connectPort, connectDeadline: 0)
    }

    deinit {
        stream?.close()
        if stream == nil, descriptor >= 0 { dialer.close(descriptor) }
        for descriptor in attempts.values { dialer.close(descriptor) }
    }

    // MARK: Entry points

    /// Starts, on the loop.
    func start() {
        let now = loop.now()
        machine = ConnectorStateMachine(
            host: key.connectHost, port: key.connectPort, configuration: raceConfiguration,
            connectDeadline: loop.clock.deadline(after: connectTimeout), requestDeadline: deadline)
        if let deadline {
            deadlineTimer = loop.schedule(at: deadline) { [weak self] in
                guard let self else { return }
                deadlineTimer = nil
                run(machine.deadlinePassed(now: loop.now()))
            }
        }
        let known =
            (key.unixSocket.map { [$0] } ?? key.overrideAddresses).map { .success($0) }
            ?? resolution.addressesWithoutLookup(host: key.connectHost, port: key.connectPort)
        switch known {
        case .success(let known): run(machine.start(addresses: known, now: now))
        case .failure(let failure): run(machine.start(failure: failure))
        }
    }

    /// Gives up, from any thread: whatever is open closes, and the connector ends as cancelled.
    func cancel() {
        loop.execute { [self] in run(machine.cancelled(now: loop.now())) }
    }

    func descriptorIsReady(_ descriptor: Int32, readable: Bool, writable: Bool) {
        if case .handshaking = machine.state, descriptor == self.descriptor || descriptor == stream?.descriptor {
            return handshake()
        }
        guard writable || readable, let id = attempts.first(where: { $0.value == descriptor })?.key else { return }
        let error = dialer.connectionError(descriptor)
        if error != nil { dropAttempt(id) }
        feed(.attempt(id, error?.code))
    }

    // MARK: Actions

    /// An event that came while actions ran.
    private enum Settled {
        /// An attempt connected (nil) or failed.
        case attempt(ConnectorStateMachine.AttemptID, POSIXErrorCode?)
        /// A family's answer.
        case resolved(SocketAddress.Family, Result<[SocketAddress], ResolutionFailure>)
    }

    /// Feeds `event` to the machine now, or after the actions that run.
    private func feed(_ event: Settled) {
        settled.append(event)
        if !isRunning { run([]) }
    }

    private func run(_ actions: [ConnectorStateMachine.Action]) {
        guard !isRunning else {
            for action in actions { run(action) }
            return
        }
        isRunning = true
        defer { isRunning = false }
        for action in actions { run(action) }
        while !settled.isEmpty {
            let now = loop.now()
            let next: [ConnectorStateMachine.Action] =
                switch settled.removeFirst() {
                case .attempt(let id, nil): machine.attemptConnected(id, now: now)
                case .attempt(let id, let error?): machine.attemptFailed(id, error, now: now)
                case .resolved(let family, let result): machine.resolved(family, result, now: now)
                }
            for action in next { run(action) }
        }
    }

    private func run(_ action: ConnectorStateMachine.Action) {
        switch action {
        case .resolve(let family):
            resolve(family)
        case .connect(let id, let address):
            connect(id, to: address)
        case .close(let id):
            dropAttempt(id)
        case .wakeRace(let at):
            moveRaceTimer(to: at)
        case .handshake(let id):
            connected(id)
        case .succeed:
            succeed()
        case .fail(let failure):
            fail(failure)
        }
    }

    private func resolve(_ family: SocketAddress.Family) {
        if times.lookupStart == 0 { times.lookupStart = loop.now() }
        pendingFamilies.insert(family)
        resolution.resolve(host: key.connectHost, port: key.connectPort, family: family, on: loop) {
            [weak self] result in
            guard let self else { return }
            pendingFamilies.remove(family)
            if pendingFamilies.isEmpty, times.lookupEnd == 0 { times.lookupEnd = loop.now() }
            feed(.resolved(family, result))
        }
    }

    private func connect(_ id: ConnectorStateMachine.AttemptID, to address: SocketAddress) {
        let now = loop.now()
        if times.connectStart == 0 { times.connectStart = now }
        if !pendingFamilies.isEmpty, times.lookupEnd == 0 { times.lookupEnd = now }
        let descriptor: Int32
        do throws(NetworkSocket.Failure) {
            let started = try dialer.startConnecting(to: address)
            descriptor = started.descriptor
            attempts[id] = descriptor
            if started.isConnected { return feed(.attempt(id, nil)) }
        } catch {
            return feed(.attempt(id, Self.code(of: error)))
        }
        do throws(POSIXError) {
            try loop.register(descriptor, interest: .writable, handler: self)
            registered.insert(id)
        } catch {
            dropAttempt(id)
            feed(.attempt(id, error.code))
        }
    }

    private static func code(of failure: NetworkSocket.Failure) -> POSIXErrorCode {
        switch failure {
        case .system(let error): error.code
        case .timedOut: .ETIMEDOUT
        case .hostNotFound: .EHOSTUNREACH
        }
    }

    /// Closes an attempt's socket, if it has one still.
    private func dropAttempt(_ id: ConnectorStateMachine.AttemptID) {
        guard let descriptor = attempts.removeValue(forKey: id) else { return }
        if registered.remove(id) != nil { loop.deregister(descriptor) }
        dialer.close(descriptor)
    }

    private func moveRaceTimer(to deadline: UInt64) {
        if let raceTimer { loop.cancel(raceTimer) }
        raceTimer = loop.schedule(at: deadline) { [weak self] in
            guard let self else { return }
            raceTimer = nil
            run(machine.raceTimerFired(now: loop.now()))
        }
    }

    /// An attempt's socket connected: the stream is made over it, and its handshakes begin.
    private func connected(_ id: ConnectorStateMachine.AttemptID) {
        if let raceTimer { loop.cancel(raceTimer) }
        raceTimer = nil
        let now = loop.now()
        times.connectEnd = now
        times.addressAttempts = machine.addressAttempts
        if key.isSecure { times.handshakeStart = now }
        guard let winner = attempts.removeValue(forKey: id) else {
            handshakeError = POSIXError(.EBADF)
            return run(machine.handshakeFailed())
        }
        descriptor = winner
        isRegistered = registered.remove(id) != nil
        address = machine.addressAttempts.indices.contains(id) ? machine.addressAttempts[id].address : nil
        do {
            let made = try dialer.makeStream(descriptor: descriptor, key: key)
            stream = made
        } catch {
            handshakeError = error
            return run(machine.handshakeFailed())
        }
        stepTimer = loop.schedule(after: connectTimeout) { [weak self] in
            guard let self else { return }
            stepTimer = nil
            run(machine.handshakeTimedOut())
        }
        handshake()
    }

    /// One handshake step: done, or waiting for the readiness it needs.
    private func handshake() {
        guard let stream else { return }
        do {
            switch try stream.handshake() {
            case .wouldBlock(let interest):
                try watch(interest == .readable ? .readable : .writable)
            case .transferred, .endOfStream:
                run(machine.handshakeFinished())
            }
        } catch {
            handshakeError = error
            run(machine.handshakeFailed())
        }
    }

    private func watch(_ interest: LoopInterest) throws(POSIXError) {
        if isRegistered {
            try loop.setInterest(interest, for: descriptor)
        } else {
            try loop.register(descriptor, interest: interest, handler: self)
            isRegistered = true
        }
    }

    private func succeed() {
        guard let stream else { return }
        stopTimers()
        if isRegistered { loop.deregister(descriptor) }
        isRegistered = false
        self.stream = nil
        descriptor = -1
        if key.isSecure { times.handshakeEnd = loop.now() }
        let speaksHTTP2 = negotiatesHTTP2 && (key.isSecure ? stream.negotiatedApplicationProtocol == "h2" : true)
        let facts = ConnectionFacts(
            localAddress: dialer.localAddress(of: stream.descriptor),
            remoteAddress: address?.description,
            // TLS to an https proxy carrying a plain request is the proxy's, not the origin's.
            tls: key.isSecure ? stream.negotiatedTLS : nil,
            networkProtocol: speaksHTTP2 ? "h2" : "http/1.1")
        onEnd(.opened(Opened(stream: stream, facts: facts, speaksHTTP2: speaksHTTP2)))
    }

    private func fail(_ failure: ConnectorStateMachine.Failure) {
        let (step, unfinished) = (pendingStep, stepToFinish)
        times.addressAttempts = machine.addressAttempts
        stopTimers()
        closeAttempts()
        let outcome: RequestJob.Outcome
        switch failure {
        case .couldNotConnect(let reason):
            if let socket = key.unixSocket {
                outcome = .failed(unixSocketError(reason, socket: socket), wasReused: false)
            } else {
                outcome = .connectFailed(reason)
            }
        case .raceFailed(let race, let requestDeadlineFirst):
            outcome = .failed(raceError(race, requestDeadlineFirst: requestDeadlineFirst), wasReused: false)
        case .handshakeFailed:
            outcome = .failed(handshakeError ?? POSIXError(.EPROTO), wasReused: false)
        case .handshakeTimedOut:
            outcome = .failed(
                RequestError.timedOut("\(step) did not finish within \(FoundationMapping.seconds(connectTimeout)) s"),
                wasReused: false)
        case .requestTimedOut:
            outcome = .failed(
                RequestError.timedOut(
                    "could not \(unfinished) within the request's timeout of "
                        + "\(FoundationMapping.seconds(requestTimeout)) s"),
                wasReused: false)
        case .cancelled:
            outcome = .cancelled
        case .unexpected(let what):
            outcome = .failed(
                RequestError.transport(POSIXError(.EPROTO), detail: "the connection could not be opened: \(what)"),
                wasReused: false)
        }
        onEnd(.failed(outcome))
    }

    /// The error of a connection to a Unix socket that could not be made, naming the socket's path.
    private func unixSocketError(_ failure: NetworkSocket.Failure, socket: SocketAddress) -> RequestError {
        let place = "the Unix socket \(socket.host) (for \(key.host) port \(key.port))"
        switch failure {
        case .system(let error):
            guard let reason = RequestError.connectionFailure(for: error.code) else {
                return .transport(error, detail: "could not connect to \(place)")
            }
            return .connectionFailed(reason, host: socket.host, port: nil, underlyingError: error, reason: place)
        case .timedOut:
            return .timedOut("could not connect to \(place) within \(FoundationMapping.seconds(connectTimeout)) s")
        case .hostNotFound(let why):
            return .transport(POSIXError(.ENOENT), detail: "could not connect to \(place): \(why)")
        }
    }

    /// The error of a race that tried several addresses: every one named, with how it ended; a proxy's timeout says
    /// whose proxy it is.
    private func raceError(_ race: ConnectRaceFailure, requestDeadlineFirst: Bool) -> RequestError {
        var detail = race.description
        if let proxy = key.proxy {
            detail += " (the \(proxy.server.kind.rawValue) proxy for \(key.host) port \(key.port))"
        }
        if race.reason == .timedOut {
            let bound =
                requestDeadlineFirst
                ? "the request's timeout of \(FoundationMapping.seconds(requestTimeout)) s"
                : "the connect timeout of \(FoundationMapping.seconds(connectTimeout)) s"
            return .timedOut("\(detail), within \(bound)", underlyingError: race)
        }
        return race.requestError
    }

    private func closeAttempts() {
        for id in Array(attempts.keys) { dropAttempt(id) }
        if isRegistered, descriptor >= 0 { loop.deregister(descriptor) }
        isRegistered = false
        if let stream {
            stream.close()
        } else if descriptor >= 0 {
            dialer.close(descriptor)
        }
        stream = nil
        descriptor = -1
    }

    private func stopTimers() {
        if let raceTimer { loop.cancel(raceTimer) }
        raceTimer = nil
        if let stepTimer { loop.cancel(stepTimer) }
        stepTimer = nil
        if let deadlineTimer { loop.cancel(deadlineTimer) }
        deadlineTimer = nil
    }

    /// The handshake step the connector waits on, for a timeout's message: a step of a proxy's tunnel, or the TLS
    /// handshake with the origin.
    private var pendingStep: String {
        (stream as? ProxyTunnelByteStream)?.pendingStep ?? "the TLS handshake with \(key.host) port \(key.port)"
    }

    /// What the connector was doing, for the message of a request's timeout.
    private var stepToFinish: String {
        if stream != nil { return "finish \(pendingStep)" }
        guard let proxy = key.proxy else { return "connect to \(key.host) port \(key.port)" }
        return
            "connect to \(proxy.server.place) (the \(proxy.server.kind.rawValue) proxy for \(key.host) port \(key.port))"
    }
}

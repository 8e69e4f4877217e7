import Foundation

/// Opens one connection on an event loop: resolves the host, connects to its addresses in turn, runs the stream's
/// handshakes (a proxy's tunnel, TLS and ALPN), and hands over a ready ``ByteStream`` with the protocol agreed. The
/// pool then makes an ``HTTP1Connection`` or an ``HTTP2Connection`` of it: a connection starts with bytes, never with
/// DNS.
///
/// A shell around its ``ConnectorStateMachine``: readiness, timers and the lookup's answer go in as events, and
/// every action comes out through ``run(_:)``. The system calls are its ``SocketDialer``'s. Each attempt and the
/// handshakes have the connect timeout; the request's deadline bounds the whole.
///
/// Its loop owns it: ``start()`` and every step run on the loop's thread; ``cancel()`` may come from any thread.
///
/// ```swift
/// let connector = Connector(
///     key: key, loop: loop, dialer: SystemDialer(), connectTimeout: 10, deadline: nil, negotiatesHTTP2: true
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
    }

    let key: ConnectionKey
    let loop: EventLoop
    private let dialer: any SocketDialer
    private let connectTimeout: Double
    private let deadline: UInt64?
    /// The request's timeout in seconds, for the message when its deadline passes.
    private let requestTimeout: Double
    private let negotiatesHTTP2: Bool
    private let onEnd: (Outcome) -> Void
    private var machine = ConnectorStateMachine()
    /// The attempt's descriptor, before a stream owns it; -1 when none.
    private var descriptor: Int32 = -1
    private var stream: (any ByteStream)?
    private var isRegistered = false
    private var address: NetworkSocket.Address?
    private var stepTimer: LoopTimer?
    private var deadlineTimer: LoopTimer?
    /// The error of a failed handshake, which the machine does not hold.
    private var handshakeError: (any Error)?
    /// When each phase began and ended.
    private(set) var times = Times()

    /// A connector for `key` on `loop`, which calls `onEnd` once, on the loop, when it ends.
    ///
    /// - Parameters:
    ///   - deadline: When the request it opens for gives up (loop-clock nanoseconds); nil for never.
    ///   - requestTimeout: That request's timeout in seconds, for the message when the deadline passes.
    ///   - negotiatesHTTP2: Whether the connection may speak HTTP/2: offered over TLS, or spoken without asking.
    init(
        key: ConnectionKey, loop: EventLoop, dialer: any SocketDialer, connectTimeout: Double, deadline: UInt64?,
        requestTimeout: Double = 0, negotiatesHTTP2: Bool, onEnd: @escaping (Outcome) -> Void
    ) {
        self.requestTimeout = requestTimeout
        self.key = key
        self.loop = loop
        self.dialer = dialer
        self.connectTimeout = connectTimeout
        self.deadline = deadline
        self.negotiatesHTTP2 = negotiatesHTTP2
        self.onEnd = onEnd
    }

    deinit {
        stream?.close()
        if stream == nil, descriptor >= 0 { dialer.close(descriptor) }
    }

    // MARK: Entry points

    /// Starts, on the loop.
    func start() {
        if let deadline {
            deadlineTimer = loop.schedule(at: deadline) { [weak self] in
                guard let self else { return }
                deadlineTimer = nil
                run(machine.deadlinePassed())
            }
        }
        let addresses = Result { () throws(NetworkSocket.Failure) in
            try dialer.addressesWithoutLookup(host: key.connectHost, port: key.connectPort)
        }
        switch addresses {
        case .success(nil): run(machine.start(addresses: nil))
        case .success(let known?): run(machine.start(addresses: .success(known)))
        case .failure(let failure): run(machine.start(addresses: .failure(failure)))
        }
    }

    /// Gives up, from any thread: whatever is open closes, and the connector ends as cancelled.
    func cancel() {
        loop.execute { [self] in run(machine.cancelled()) }
    }

    func descriptorIsReady(_ descriptor: Int32, readable: Bool, writable: Bool) {
        guard descriptor == self.descriptor || descriptor == stream?.descriptor else { return }
        switch machine.state {
        case .connecting:
            guard writable || readable else { return }
            if let error = dialer.connectionError(self.descriptor) {
                run(machine.attemptFailed(.system(error)))
            } else {
                run(machine.attemptConnected())
            }
        case .handshaking:
            handshake()
        default:
            return
        }
    }

    // MARK: Actions

    private func run(_ action: ConnectorStateMachine.Action) {
        switch action {
        case .none:
            return
        case .resolve:
            resolve()
        case .connect(let address):
            connect(to: address)
        case .handshake:
            connected()
        case .succeed:
            succeed()
        case .fail(let failure):
            fail(failure)
        }
    }

    private func resolve() {
        times.lookupStart = loop.now()
        // The lookup has the connect timeout, as one attempt has.
        stepTimer = loop.schedule(after: connectTimeout) { [weak self] in
            guard let self else { return }
            stepTimer = nil
            run(machine.resolved(.failure(.timedOut)))
        }
        do {
            try dialer.resolve(host: key.connectHost, port: key.connectPort) { [weak self] result in
                guard let self else { return }
                loop.execute { self.lookupEnded(result) }
            }
        } catch {
            lookupEnded(.failure(error))
        }
    }

    private func lookupEnded(_ result: Result<[NetworkSocket.Address], NetworkSocket.Failure>) {
        guard machine.state == .resolving else { return run(machine.resolved(result)) }
        times.lookupEnd = loop.now()
        cancelStepTimer()
        run(machine.resolved(result))
    }

    private func connect(to address: NetworkSocket.Address) {
        closeAttempt()
        if times.connectStart == 0 { times.connectStart = loop.now() }
        self.address = address
        do {
            let (descriptor, isConnected) = try dialer.startConnecting(to: address)
            self.descriptor = descriptor
            if isConnected { return run(machine.attemptConnected()) }
            try loop.register(descriptor, interest: .writable, handler: self)
            isRegistered = true
        } catch let failure as NetworkSocket.Failure {
            return run(machine.attemptFailed(failure))
        } catch let error as POSIXError {
            return run(machine.attemptFailed(.system(error)))
        } catch {
            return run(machine.attemptFailed(.system(POSIXError(.EIO))))
        }
        stepTimer = loop.schedule(after: connectTimeout) { [weak self] in
            guard let self else { return }
            stepTimer = nil
            run(machine.attemptTimedOut())
        }
    }

    /// The socket connected: the stream is made over it, and its handshakes begin.
    private func connected() {
        cancelStepTimer()
        let now = loop.now()
        times.connectEnd = now
        if key.isSecure { times.handshakeStart = now }
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
            remoteAddress: address.flatMap { NetworkSocket.describe($0.bytes) },
            // TLS to an https proxy carrying a plain request is the proxy's, not the origin's.
            tls: key.isSecure ? stream.negotiatedTLS : nil,
            networkProtocol: speaksHTTP2 ? "h2" : "http/1.1")
        onEnd(.opened(Opened(stream: stream, facts: facts, speaksHTTP2: speaksHTTP2)))
    }

    private func fail(_ failure: ConnectorStateMachine.Failure) {
        let (step, unfinished) = (pendingStep, stepToFinish)
        stopTimers()
        closeAttempt()
        let outcome: RequestJob.Outcome
        switch failure {
        case .couldNotConnect(let reason):
            outcome = .connectFailed(reason)
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

    private func closeAttempt() {
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

    private func cancelStepTimer() {
        if let stepTimer { loop.cancel(stepTimer) }
        stepTimer = nil
    }

    private func stopTimers() {
        cancelStepTimer()
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

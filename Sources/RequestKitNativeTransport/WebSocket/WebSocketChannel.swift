import Foundation
import RequestKitConnect
import RequestKitModel
import RequestKitSockets
import RequestKitWebSocket

#if canImport(CNghttp2)
import RequestKitHTTP2
#endif

/// One client WebSocket connection on an event loop: a shell that opens the stream through a ``Connector``, writes
/// the upgrade request and reads the answer (``WebSocketUpgrade``), then forwards every event of the open
/// connection (bytes read, a message to send, a close asked for, a message consumed, a timer, the end of the input,
/// a cancellation) to its ``WebSocketConnectionStateMachine`` and carries out each action it returns: write bytes,
/// deliver a message, pause or resume reading, arm a timer, end the messages, close the stream.
///
/// The messages wait in a queue the state machine bounds (``WebSocket/Configuration/maxQueuedMessages`` and
/// ``WebSocket/Configuration/maxQueuedBytes``): while it is full the descriptor is not watched for reading, so a slow
/// consumer stops the socket being read. Over HTTP/2 the connection is still read, and its `PING`s and `SETTINGS`
/// answered, while the stream's bytes wait: the stream's window, opened only as they are taken, stops the server. A
/// message the consumer takes is counted off on the loop.
///
/// Its loop owns every field but the queue, which `lock` guards, and lends the connection (``LoopOwnedConnection``)
/// to a task that sends or waits for a message while nothing waits to be written: ``send(_:)`` then writes the frame
/// from the task's thread, and ``next()`` reads what has come, without waking the loop; a message that has not come
/// yet is read by the loop, which hands it over. The task never waits on the socket: looking for an answer it sent
/// for (as an HTTP/1.1 request may, ``HTTP1PromptPolling``) took more CPU and more wake-ups per message than waiting for
/// the loop. What only the loop may do (watching the socket, timers, closing) is handed to it. The other entry points (``open()``,
/// ``close(_:reason:)``, ``cancel()``) may be called from any thread and hop onto the loop.
///
/// ```swift
/// let channel = WebSocketChannel(setup: setup, loop: loop, dialer: SystemDialer(), resolver: HostResolver())
/// let opened = try await channel.open()
/// try await channel.send(.text("hello"))
/// let reply = try await channel.next()
/// ```
final class WebSocketChannel: EventLoopHandler, LoopOwnedConnection, @unchecked Sendable {
    // Safe: every field below `lock`'s is only touched by the connection's owner of the moment (its loop, or the
    // task it is lent to: ``ownership``); `lock` guards the consumer's queue.

    typealias Step = () -> Void

    /// What opening needs, made by the transport from the socket's definition.
    struct Setup: Sendable {
        /// Where the connection goes (the origin, its TLS settings and the proxy).
        let key: ConnectionKey
        /// The upgrade request's bytes.
        let request: [UInt8]
        /// The handshake, whose answer is checked.
        let upgrade: WebSocketUpgrade
        /// The limits and behaviour of the open connection.
        let configuration: WebSocket.Configuration
        /// The handshake's timeout in seconds (connecting included).
        let timeout: Double
        /// One connection attempt's timeout in seconds.
        let connectTimeout: Double
        /// Where the frames' masking keys come from: nil for the system's CSPRNG (tests give known keys).
        var maskingKeys: (any RandomNumberGenerator & Sendable)?
        /// Whether the handshake's phases are recorded (``NativeTransport/Configuration/recordsMetrics``).
        var recordsMetrics = true
        #if canImport(CNghttp2)
        /// The connection tried first, on an HTTP/2 stream (``WebSocket/Configuration/prefersHTTP2``); nil opens it
        /// over HTTP/1.1 only.
        var http2: HTTP2Attempt?
        #endif
    }

    #if canImport(CNghttp2)
    /// A WebSocket opened on an HTTP/2 stream with extended CONNECT (RFC 8441) when the server allows it.
    struct HTTP2Attempt: Sendable {
        /// Where the connection goes, with `h2` offered by ALPN.
        let key: ConnectionKey
        /// The extended CONNECT's head.
        let head: HTTP2RequestHead
        /// Where a server that picks HTTP/2 without allowing extended CONNECT is remembered.
        var refusals: ExtendedConnectRefusals?
    }
    #endif

    /// What the handshake agreed, for the socket.
    struct Opened: Sendable {
        let subprotocol: String?
        let compression: PerMessageDeflateParameters?
        let headers: HTTPHeaders
        /// The handshake's attempt: its phases, addresses and byte counts (empty when not recorded).
        let metrics: RequestMetrics
    }

    private enum Phase {
        case idle
        case connecting
        case upgrading
        case open
        /// The stream closes once what is written is flushed.
        case draining
        case closed
    }

    /// How the consumer's messages end.
    private enum Ending {
        case finished
        case failed(RequestError)
        /// The failure was handed to the consumer: later calls return nil.
        case reported
    }

    let loop: EventLoop
    let ownership = ConnectionOwnership<Step>()
    private let dialer: any SocketDialer
    private let resolver: HostResolver
    private let race: HappyEyeballsStateMachine.Configuration
    private let setup: Setup
    /// The most bytes waiting to be written before ``send(_:)`` waits for them to go.
    static let outboundHighWater = 1 << 20

    // The consumer's queue, guarded by `lock`.
    private let lock = NSLock()
    private var queue: [WebSocketMessage] = []
    private var queueHead = 0
    private var ending: Ending?
    private var waiter: CheckedContinuation<Result<WebSocketMessage?, RequestError>, Never>?

    // The loop's.
    private var phase = Phase.idle
    private var connector: Connector?
    private var stream: (any ByteStream)?
    private var upgrade: WebSocketUpgrade
    private var machine: WebSocketConnectionStateMachine?
    private var openWaiter: CheckedContinuation<Result<Opened, RequestError>, Never>?
    private var sendWaiters: [CheckedContinuation<Result<Void, RequestError>, Never>] = []
    private var closeWaiters: [CheckedContinuation<Result<Void, RequestError>, Never>] = []
    private var handshakeTimer: LoopTimer?
    private var pingTimer: LoopTimer?
    private var closeTimer: LoopTimer?
    private var outbound: [UInt8] = []
    private var outboundStart = 0
    private var wantsWritable = false
    /// Whether a write waits for bytes to be read first (an HTTP/2 stream's window, opened by a `WINDOW_UPDATE`).
    private var writeWaitsForReadable = false
    /// When the handshake, connecting included, must be done (the loop's clock).
    private var deadline: UInt64 = 0
    /// Whether the connection being opened offers HTTP/2 (``Setup/http2``): false once a server refused it.
    private var triesHTTP2 = false
    #if canImport(CNghttp2)
    /// The HTTP/2 stream the connection runs on, when it does.
    private var tunnel: HTTP2TunnelByteStream?
    #endif
    private var isReadingPaused = false
    private var isRegistered = false
    /// How the connection ended, once it did: the error a later ``close(_:reason:)`` reports.
    private var finalError: RequestError?
    /// What the handshake saw of its phases, as an HTTP request's attempt records them.
    private var record = AttemptRecord(started: 0, isRecording: false)
    private let readBuffer: UnsafeMutableRawBufferPointer
    /// Whether the step running is an awaiting task's, the connection lent to it.
    private var isOffLoop = false
    /// Whether that step handed work to the loop: it stops there, and the loop goes on (false on the loop).
    private var handedOff = false

    init(
        setup: Setup, loop: EventLoop, dialer: any SocketDialer, resolver: HostResolver,
        race: HappyEyeballsStateMachine.Configuration = .init()
    ) {
        self.setup = setup
        self.loop = loop
        self.dialer = dialer
        self.resolver = resolver
        self.race = race
        upgrade = setup.upgrade
        #if canImport(CNghttp2)
        triesHTTP2 = setup.http2 != nil
        #endif
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    }

    deinit {
        stream?.close()
        readBuffer.deallocate()
    }

    // MARK: Entry points, from any thread

    /// Connects and runs the opening handshake; cancelling the task gives up.
    ///
    /// - Throws: ``RequestError``: the connection's failures as a request's, a refused or broken handshake
    ///   (``RequestError/Kind/webSocket``), the handshake's timeout, or a cancellation.
    func open() async throws(RequestError) -> Opened {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Opened, RequestError>, Never>) in
                handToLoop { [self] in start(continuation) }
            }
        } onCancel: {
            cancel()
        }
        return try result.get()
    }

    /// Sends a message; waits while more than ``outboundHighWater`` bytes wait to be written. Cancelling the task
    /// while it waits closes the connection (going away), as cancelling the consumer does: the message may be
    /// partly written, and nothing can follow half a frame.
    ///
    /// - Throws: ``RequestError`` (``RequestError/WebSocketFailure/closed``) once the connection is closing; of kind
    ///   ``RequestError/Kind/cancelled`` when the task was cancelled while it waited.
    func send(_ message: WebSocketMessage) async throws(RequestError) {
        let result: Result<Void, RequestError>
        switch sendInline(message) {
        case .done(let outcome):
            result = outcome
        case .waitsForFlush:
            result = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    handToLoop { [self] in waitForFlush(continuation) }
                }
            } onCancel: {
                cancel()
            }
        case .notLent:
            result = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    handToLoop { [self] in send(message, continuation) }
                }
            } onCancel: {
                cancel()
            }
        }
        try result.get()
    }

    /// Starts the closing handshake and waits until the connection is over.
    ///
    /// - Throws: ``RequestError``: an invalid code or reason, or the close's timeout.
    func close(_ code: WebSocketCloseCode, reason: String) async throws(RequestError) {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Void, RequestError>, Never>) in
            handToLoop { [self] in close(code, reason: reason, continuation) }
        }
        try result.get()
    }

    /// The next message; nil once the connection closed; cancelling the task closes the connection.
    ///
    /// - Throws: ``RequestError`` saying how the connection failed (once; nil after).
    func next() async throws(RequestError) -> WebSocketMessage? {
        if let ready = takeReady() ?? (receiveInline() ? takeReady() : nil) { return try ready.get() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<WebSocketMessage?, RequestError>, Never>) in
                guard let now = dequeue(orWait: continuation) else { return }
                continuation.resume(returning: now)
                countOff(now)
            }
        } onCancel: {
            cancel()
        }
        return try result.get()
    }

    /// The consumer went away: the connection closes (going away), or the handshake is given up.
    func cancel() {
        handToLoop { [self] in
            switch phase {
            case .idle, .connecting, .upgrading:
                connector?.cancel()
                failOpening(RequestError.cancelled(underlyingError: CancellationError()))
            case .open:
                run(machine?.cancelled() ?? .none)
                releaseSenders()
            case .draining:
                releaseSenders()
            case .closed:
                break
            }
        }
    }

    /// The error of a connection its consumer or a sender cancelled, while it drains: no sender waits on it.
    private var cancellation: RequestError? {
        finalError?.kind == .cancelled ? finalError : nil
    }

    /// Senders waiting for the write buffer to drain learn at once that the connection was cancelled: the close
    /// frame and what precedes it may take up to the close timeout to go, or never go.
    private func releaseSenders() {
        let waiting = sendWaiters
        sendWaiters = []
        let error = finalError ?? RequestError.cancelled(underlyingError: CancellationError())
        for waiter in waiting { waiter.resume(returning: .failure(error)) }
    }

    // MARK: From the awaiting task, the connection lent

    /// What ``sendInline(_:)`` did.
    private enum InlineSend {
        /// The message was sent, or refused.
        case done(Result<Void, RequestError>)
        /// It was sent, and more than ``outboundHighWater`` bytes wait to be written: the sender waits for them.
        case waitsForFlush
        /// The loop holds the connection, or bytes wait to be written: the loop sends it.
        case notLent
    }

    /// Runs `body` with the connection lent to the calling task, when the loop can lend it: `body`'s answer, or
    /// false.
    private func inline(_ body: () -> Bool) -> Bool {
        lent {
            isOffLoop = true
            defer { (isOffLoop, handedOff) = (false, false) }
            return body()
        }
    }

    /// Sends `message` from the calling task when the connection is open and nothing waits to be written.
    private func sendInline(_ message: WebSocketMessage) -> InlineSend {
        var outcome = InlineSend.notLent
        _ = inline {
            guard phase == .open, machine != nil, outboundStart == outbound.count, !isWriteBlocked else { return false }
            do throws(RequestError) {
                run(try machine?.send(message) ?? .none)
            } catch {
                outcome = .done(.failure(error))
                return true
            }
            if phase != .open && phase != .draining {
                outcome = .done(.failure(finalError ?? .webSocket(.closed, "the WebSocket connection closed")))
            } else if outbound.count - outboundStart > Self.outboundHighWater {
                outcome = .waitsForFlush
            } else {
                outcome = .done(.success(()))
            }
            return true
        }
        return outcome
    }

    /// The message at the head of the queue, counted off, or how the messages ended; nil when neither is there.
    private func takeReady() -> Result<WebSocketMessage?, RequestError>? {
        let ready = dequeue(orWait: nil)
        countOff(ready)
        return ready
    }

    /// The message at the head of the queue, or how the messages ended (reporting a failure once); nil when neither
    /// is there, and then `continuation`, when given, waits for the next.
    private func dequeue(
        orWait continuation: CheckedContinuation<Result<WebSocketMessage?, RequestError>, Never>?
    ) -> Result<WebSocketMessage?, RequestError>? {
        lock.withLock {
            if queueHead < queue.count {
                let message = queue[queueHead]
                queueHead += 1
                if queueHead == queue.count {
                    queue.removeAll(keepingCapacity: queue.count < 1024)
                    queueHead = 0
                }
                return .success(message)
            }
            switch ending {
            case .finished?, .reported?: return .success(nil)
            case .failed(let error)?:
                ending = .reported
                return .failure(error)
            case nil:
                if let continuation { waiter = continuation }
                return nil
            }
        }
    }

    /// Counts off a message the consumer took: from the calling task when the loop lends the connection, else on the
    /// loop.
    private func countOff(_ taken: Result<WebSocketMessage?, RequestError>?) {
        guard case .success(let message?) = taken else { return }
        let byteCount = message.byteCount
        if !inline({
            consumed(byteCount)
            return true
        }) {
            handToLoop { [self] in consumed(byteCount) }
        }
    }

    /// Whether a message or the messages' end is ready.
    private var hasReady: Bool {
        lock.withLock { queueHead < queue.count || ending != nil }
    }

    /// Reads what has come, from the calling task: whether a message or the messages' end is ready.
    private func receiveInline() -> Bool {
        inline {
            guard phase == .open, machine != nil, !isReadingPaused, outboundStart == outbound.count, !isWriteBlocked
            else { return false }
            readInline()
            return hasReady
        }
    }

    /// Reads and processes what the socket holds, from the calling task, after what was read before.
    private func readInline() {
        // Reading an HTTP/2 stream may leave acknowledgements the socket did not take.
        defer { if hasUnwrittenTunnelBytes, !handedOff { flush() } }
        process()
        var budget = 16
        while budget > 0, !handedOff, let stream, phase == .open, !isReadingPaused, !isMachinePaused {
            budget -= 1
            let result: ByteStreamResult
            do {
                result = try stream.read(into: readBuffer)
            } catch {
                return streamFailed(error)
            }
            switch result {
            case .transferred(let count):
                machine?.received(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
                process()
                if Self.drained(stream, by: count, of: readBuffer.count) { return }
            case .endOfStream:
                return run(machine?.inputEnded() ?? .none)
            case .wouldBlock:
                return
            }
        }
        if budget == 0, !handedOff {
            handedOff = true
            handToLoop { [self] in readAvailable() }
        }
    }

    /// Whether a write waits for the socket: it is the loop's to finish.
    private var isWriteBlocked: Bool { wantsWritable || writeWaitsForReadable || hasUnwrittenTunnelBytes }

    /// Whether the HTTP/2 stream's session has bytes the socket did not take yet.
    private var hasUnwrittenTunnelBytes: Bool {
        #if canImport(CNghttp2)
        tunnel?.hasUnwrittenBytes == true
        #else
        false
        #endif
    }

    /// Whether the socket is read while the consumer's queue is full: an HTTP/2 stream's connection is, until it
    /// ends, so that the server's `PING`s and `SETTINGS` are answered; the stream's window bounds what piles up.
    private var watchesTunnelWhilePaused: Bool {
        #if canImport(CNghttp2)
        phase == .open && tunnel?.isConnectionOpen == true
        #else
        false
        #endif
    }

    /// Whether the connection runs on an HTTP/2 stream.
    private var isTunnelled: Bool {
        #if canImport(CNghttp2)
        tunnel != nil
        #else
        false
        #endif
    }

    /// Bytes an HTTP/2 stream read from the socket while a write waited for its window (`DATA` came with the
    /// `WINDOW_UPDATE`) wait in the stream, not in the socket, which will not say they are there: the loop reads them
    /// on a turn of its own.
    private func readTunnelInboundLater() {
        #if canImport(CNghttp2)
        guard phase == .open, !isReadingPaused, tunnel?.hasBufferedBytes == true else { return }
        handToLoop { [self] in readAvailable() }
        #endif
    }

    /// Whether the machine paused reading and the loop has not caught up yet: a pause a lent task handed over is
    /// the loop's to carry out, and a read the loop had waiting may come first. Nothing more is read meanwhile.
    private var isMachinePaused: Bool { machine?.isReadingPaused == true }

    /// Whether a read of `count` bytes into a buffer of `capacity` took all the stream had: it did not fill the
    /// buffer and no layer above the socket holds more. The socket, watched by level, says when more comes; reading
    /// again would only find it empty.
    private static func drained(_ stream: any ByteStream, by count: Int, of capacity: Int) -> Bool {
        count < capacity && !stream.hasBufferedBytes
    }

    /// The loop's part of a send once its frames are queued: the sender returns, or waits while more than
    /// ``outboundHighWater`` bytes wait to be written; it learns at once that the connection ended or was cancelled.
    private func waitForFlush(_ continuation: CheckedContinuation<Result<Void, RequestError>, Never>) {
        if phase != .open && phase != .draining {
            continuation.resume(
                returning: .failure(finalError ?? .webSocket(.closed, "the WebSocket connection closed")))
        } else if let cancelled = cancellation {
            continuation.resume(returning: .failure(cancelled))
        } else if outbound.count - outboundStart > Self.outboundHighWater {
            sendWaiters.append(continuation)
        } else {
            continuation.resume(returning: .success(()))
        }
    }

    // MARK: Opening, on the loop

    private func start(_ continuation: CheckedContinuation<Result<Opened, RequestError>, Never>) {
        guard phase == .idle else {
            return continuation.resume(returning: .failure(.webSocket(.closed, "the WebSocket was opened already")))
        }
        openWaiter = continuation
        phase = .connecting
        record = AttemptRecord(started: loop.now(), isRecording: setup.recordsMetrics)
        record.assign(isReused: false, at: record.started)
        deadline = loop.now() &+ UInt64(max(0, min(setup.timeout, 1e9)) * 1e9)
        handshakeTimer = loop.schedule(at: deadline) { [weak self] in
            self?.perform { [weak self] in self?.handshakeTimedOut() }
        }
        connect(deadline: deadline)
    }

    /// Opens the connection, offering HTTP/2 while ``triesHTTP2``.
    private func connect(deadline: UInt64) {
        var key = setup.key
        #if canImport(CNghttp2)
        if triesHTTP2, let http2 = setup.http2 { key = http2.key }
        #endif
        let connector = Connector(
            key: key, loop: loop, dialer: dialer, resolution: resolver, connectTimeout: setup.connectTimeout,
            deadline: deadline, requestTimeout: setup.timeout, negotiatesHTTP2: triesHTTP2, race: race
        ) { [weak self] outcome in
            self?.handToLoop { [weak self] in self?.connectorEnded(outcome) }
        }
        self.connector = connector
        connector.start()
    }

    private func handshakeTimedOut() {
        handshakeTimer = nil
        connector?.cancel()
        failOpening(
            .timedOut(
                "the WebSocket handshake with \(setup.key.host) port \(setup.key.port) did not finish within "
                    + "\(FoundationMapping.seconds(setup.timeout)) s"))
    }

    private func connectorEnded(_ outcome: Connector.Outcome) {
        if let connector { record.noteConnect(connector.times) }
        connector = nil
        switch outcome {
        case .opened(let opened):
            guard phase == .connecting else { return opened.stream.close() }
            stream = opened.stream
            phase = .upgrading
            if record.isRecording { record.connection = opened.facts }
            do {
                try loop.register(opened.stream.descriptor, interest: .readable, handler: self)
                isRegistered = true
            } catch {
                return failOpening(.transport(error, detail: "the event loop could not watch the WebSocket's socket"))
            }
            #if canImport(CNghttp2)
            if opened.speaksHTTP2, let http2 = setup.http2 {
                do {
                    let tunnel = try HTTP2TunnelByteStream(over: opened.stream, head: http2.head)
                    (self.tunnel, stream) = (tunnel, tunnel)
                } catch {
                    return failOpening(error)
                }
                record.noteSendStart(at: loop.now())
                return openTunnel()
            }
            #endif
            outbound.append(contentsOf: setup.request)
            record.noteSendStart(at: loop.now())
            record.bytesSent = setup.request.count
            flush()
        case .failed(let failure):
            guard phase == .connecting else { return }
            failOpening(error(of: failure))
        }
    }

    /// The error of a connector that opened nothing.
    private func error(of outcome: RequestJob.Outcome) -> RequestError {
        switch outcome {
        case .connectFailed(let failure):
            return NativeTransport.connectError(failure, key: setup.key, connectTimeout: setup.connectTimeout)
        case .failed(let error, _):
            return NativeTransport.requestError(for: error, idleTimeout: setup.timeout, key: setup.key)
        case .cancelled:
            return .cancelled(underlyingError: CancellationError())
        case .response, .head, .poolWaitTimedOut:
            return .transport(URLError(.unknown), detail: "the WebSocket connection could not be opened")
        }
    }

    private func upgraded(_ progress: WebSocketUpgrade.Progress) {
        switch progress {
        case .needsMore:
            return
        case .failed(let error):
            record.noteComplete(at: loop.now())
            failOpening(error)
        case .opened(let agreement, let headers, let leftover):
            // The frames that came with the head are the connection's, not the handshake's.
            record.bytesReceived -= leftover.count
            opened(agreement, headers: headers, status: 101, leftover: leftover)
        }
    }

    /// The handshake is done: the connection opens, with `leftover`, the first frames.
    private func opened(
        _ agreement: WebSocketHandshake.Agreement, headers: HTTPHeaders, status: Int, leftover: [UInt8]
    ) {
        if let handshakeTimer { loop.cancel(handshakeTimer) }
        handshakeTimer = nil
        let now = loop.now()
        record.noteComplete(at: now)
        let metrics =
            record.isRecording
            ? RequestMetrics(attempts: [
                record.attempt(url: setup.upgrade.url, status: HTTPStatus(code: status), bodyBytes: 0, end: now)
            ]) : RequestMetrics()
        machine = WebSocketConnectionStateMachine(
            role: .client, configuration: setup.configuration, compression: agreement.compression,
            maskingKeys: setup.maskingKeys ?? WebSocketMaskingKeys())
        phase = .open
        openWaiter?.resume(
            returning: .success(
                Opened(
                    subprotocol: agreement.subprotocol, compression: agreement.compression, headers: headers,
                    metrics: metrics)))
        openWaiter = nil
        run(machine?.opened() ?? .none)
        if !leftover.isEmpty {
            leftover.withUnsafeBytes { machine?.received($0) }
            process()
        }
    }

    #if canImport(CNghttp2)
    /// Moves the extended CONNECT on (RFC 8441): the server's `SETTINGS`, then its answer.
    private func openTunnel() {
        guard let tunnel, phase == .upgrading else { return }
        let opening: HTTP2TunnelByteStream.Opening
        do {
            opening = try tunnel.open()
        } catch {
            return failOpening(error)
        }
        if record.isRecording, record.sendEnd == 0, tunnel.hasSentRequest { record.sendEnd = loop.now() }
        switch opening {
        case .waiting:
            if tunnel.hasUnwrittenBytes { flush() }
        case .notAllowed:
            // The server speaks HTTP/2 without extended CONNECT: the WebSocket opens over HTTP/1.1, on a new
            // connection that does not offer h2.
            if let http2 = setup.http2 { http2.refusals?.insert(http2.key, now: loop.now()) }
            closeStream()
            self.tunnel = nil
            triesHTTP2 = false
            phase = .connecting
            connect(deadline: deadline)
        case .answered(let status, let headers, let body):
            // The server allowed extended CONNECT: a refusal remembered from before no longer holds.
            if let http2 = setup.http2 { http2.refusals?.remove(http2.key) }
            if record.isRecording { record.received(0, at: loop.now()) }
            do {
                let agreement = try setup.upgrade.handshake.acceptExtendedConnect(
                    status: status, headers: headers, body: body, url: setup.upgrade.url)
                opened(agreement, headers: headers, status: status, leftover: tunnel.takeInbound())
            } catch {
                record.noteComplete(at: loop.now())
                failOpening(error)
            }
        }
    }
    #endif

    private func failOpening(_ failure: RequestError) {
        guard phase == .idle || phase == .connecting || phase == .upgrading else { return }
        if let handshakeTimer { loop.cancel(handshakeTimer) }
        handshakeTimer = nil
        phase = .closed
        closeStream()
        if let connector { record.noteConnect(connector.times) }
        var error = failure
        if record.isRecording {
            error.metrics = RequestMetrics(attempts: [
                record.attempt(
                    url: setup.upgrade.url, status: error.response?.status, bodyBytes: nil, end: loop.now())
            ])
        }
        finalError = error
        openWaiter?.resume(returning: .failure(error))
        openWaiter = nil
    }

    // MARK: The open connection, on the loop

    private func send(
        _ message: WebSocketMessage, _ continuation: CheckedContinuation<Result<Void, RequestError>, Never>
    ) {
        guard phase == .open, machine != nil else {
            // The error says why the connection ended, when it failed.
            let reason = finalError.map { ": it ended with \($0)" } ?? ""
            return continuation.resume(
                returning: .failure(
                    .webSocket(
                        .closed, "the WebSocket connection is closing or closed; no message can be sent\(reason)")))
        }
        let action: WebSocketConnectionStateMachine.Action
        do {
            action = try machine?.send(message) ?? .none
        } catch {
            return continuation.resume(returning: .failure(error))
        }
        run(action)
        waitForFlush(continuation)
    }

    private func close(
        _ code: WebSocketCloseCode, reason: String,
        _ continuation: CheckedContinuation<Result<Void, RequestError>, Never>
    ) {
        guard phase == .open || phase == .draining else {
            return continuation.resume(returning: .success(()))
        }
        let action: WebSocketConnectionStateMachine.Action
        do {
            action = try machine?.close(code, reason: reason) ?? .none
        } catch {
            return continuation.resume(returning: .failure(error))
        }
        closeWaiters.append(continuation)
        run(action)
    }

    private func consumed(_ byteCount: Int) {
        guard machine != nil else { return }
        run(machine?.messageConsumed(byteCount: byteCount) ?? .none)
    }

    /// Works through what was received until the machine needs more bytes.
    private func process() {
        while phase == .open, machine != nil, !handedOff {
            let action = machine?.processReceived() ?? .none
            if action == .none { return }
            run(action)
        }
    }

    private func run(_ action: WebSocketConnectionStateMachine.Action) {
        if isOffLoop {
            switch action {
            case .none, .write, .deliver:
                break
            default:
                // Watching, timers and closing are the loop's.
                handedOff = true
                return handToLoop { [self] in run(action) }
            }
        }
        switch action {
        case .none:
            return
        case .write(let bytes):
            write(bytes)
        case .deliver(let message):
            deliver(message)
        case .pauseReading:
            isReadingPaused = true
            updateInterest()
        case .resumeReading:
            isReadingPaused = false
            updateInterest()
            // On a turn of its own: what was read before the pause is processed first, then the socket is read.
            handToLoop { [self] in readAvailable() }
        case .schedulePing(let interval):
            armPing(after: interval)
        case .sendPing(let ping, let interval):
            write(ping)
            armPing(after: interval)
        case .sendClose(let frame, let timeout):
            write(frame)
            armClose(after: timeout)
        case .replyToClose(let frame, let ending, let timeout):
            write(frame)
            finish(ending)
            armClose(after: timeout)
        case .endMessages(let ending):
            finish(ending)
        case .close(let frame, let ending):
            if let ending { finish(ending) }
            if let frame { outbound.append(contentsOf: frame) }
            shutDown()
        }
    }

    private func deliver(_ message: WebSocketMessage) {
        let taker: CheckedContinuation<Result<WebSocketMessage?, RequestError>, Never>? = lock.withLock {
            if let waiter {
                self.waiter = nil
                return waiter
            }
            queue.append(message)
            return nil
        }
        guard let taker else { return }
        taker.resume(returning: .success(message))
        run(machine?.messageConsumed(byteCount: message.byteCount) ?? .none)
    }

    /// Ends the consumer's messages, unless they have ended.
    private func finish(_ how: WebSocketEnding) {
        var error: RequestError?
        switch how {
        case .closed: error = nil
        case .failed, .cancelled: error = how.error
        case .streamFailed: error = finalError
        }
        if finalError == nil { finalError = error }
        let taker: CheckedContinuation<Result<WebSocketMessage?, RequestError>, Never>? = lock.withLock {
            guard ending == nil else { return nil }
            ending = error.map { .failed($0) } ?? .finished
            guard let waiter else { return nil }
            self.waiter = nil
            if error != nil { ending = .reported }
            return waiter
        }
        taker?.resume(returning: error.map { .failure($0) } ?? .success(nil))
    }

    private func armPing(after interval: Duration) {
        if let pingTimer { loop.cancel(pingTimer) }
        pingTimer = loop.schedule(after: Self.seconds(interval)) { [weak self] in
            self?.perform { [weak self] in
                guard let self else { return }
                pingTimer = nil
                run(machine?.pingTimerFired() ?? .none)
            }
        }
    }

    private func armClose(after timeout: Duration) {
        if let closeTimer { loop.cancel(closeTimer) }
        closeTimer = loop.schedule(after: Self.seconds(timeout)) { [weak self] in
            self?.perform { [weak self] in
                guard let self else { return }
                closeTimer = nil
                if phase == .draining { return closeNow() }
                run(machine?.closeTimerFired() ?? .none)
            }
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }

    // MARK: I/O, on the loop

    func descriptorIsReady(_ descriptor: Int32, readable: Bool, writable: Bool) {
        perform { [self] in
            guard let stream, descriptor == stream.descriptor else { return }
            if writable { flush() }
            if readable { readAvailable() }
            // What was read may have opened an HTTP/2 stream's window, or left acknowledgements to write; a write
            // that waits for the socket to be readable goes on here, after the read.
            if writeWaitsForReadable || hasUnwrittenTunnelBytes { flush() }
        }
    }

    /// Runs `step` on the loop: whatever holds the connection now, it is the loop's.
    func handle(_ step: @escaping Step) { step() }

    /// Reads and processes what the socket holds, after what was read before: frames left by a pause come before
    /// anything read now, the end of the stream included.
    private func readAvailable() {
        #if canImport(CNghttp2)
        if phase == .upgrading, tunnel != nil {
            openTunnel()
            guard phase == .open else { return }
        }
        #endif
        if phase == .open { process() }
        #if canImport(CNghttp2)
        if phase == .open, isReadingPaused || isMachinePaused, let tunnel {
            // The consumer's queue is full: the connection is answered, the stream's bytes wait for the consumer.
            tunnel.service()
            if !tunnel.isConnectionOpen { updateInterest() }
            return
        }
        #endif
        var budget = 16
        while budget > 0, let stream, phase == .upgrading || phase == .open, !isReadingPaused, !isMachinePaused {
            budget -= 1
            let result: ByteStreamResult
            do {
                result = try stream.read(into: readBuffer)
            } catch {
                return streamFailed(error)
            }
            switch result {
            case .transferred(let count):
                let bytes = UnsafeRawBufferPointer(rebasing: readBuffer[0..<count])
                if phase == .upgrading {
                    if record.isRecording { record.received(count, at: loop.now()) }
                    upgraded(upgrade.received(bytes))
                } else {
                    machine?.received(bytes)
                    process()
                    if Self.drained(stream, by: count, of: readBuffer.count) { return }
                }
            case .endOfStream:
                if phase == .upgrading { return upgraded(upgrade.ended()) }
                return run(machine?.inputEnded() ?? .none)
            case .wouldBlock:
                return
            }
        }
        // A long burst, or bytes a TLS layer holds: the rest on the loop's next turn, after other work.
        if budget == 0 {
            loop.execute { [weak self] in self?.perform { [weak self] in self?.readAvailable() } }
        }
    }

    private func write(_ bytes: Data) {
        outbound.append(contentsOf: bytes)
        flush()
    }

    private func flush() {
        guard let stream else { return }
        defer { readTunnelInboundLater() }
        while outboundStart < outbound.count || hasUnwrittenTunnelBytes {
            let result: ByteStreamResult
            do {
                result = try outbound.withUnsafeBytes { bytes in
                    try stream.write(UnsafeRawBufferPointer(rebasing: bytes[outboundStart...]))
                }
            } catch {
                return streamFailed(error)
            }
            switch result {
            case .transferred(let count):
                outboundStart += count
            case .wouldBlock(let interest):
                return writeBlocked(waitingFor: interest)
            case .endOfStream:
                return writeBlocked(waitingFor: .writable)
            }
        }
        outbound.removeAll(keepingCapacity: outbound.count <= 64 * 1024)
        outboundStart = 0
        if phase == .upgrading, record.isRecording, record.sendEnd == 0, !isTunnelled { record.sendEnd = loop.now() }
        if wantsWritable || writeWaitsForReadable {
            (wantsWritable, writeWaitsForReadable) = (false, false)
            updateInterest()
        }
        let waiting = sendWaiters
        sendWaiters = []
        for waiter in waiting { waiter.resume(returning: .success(())) }
        guard phase == .draining else { return }
        #if canImport(CNghttp2)
        // Over HTTP/2 the close frame may wait for the stream's window: the connection stays until the server opens
        // it (the close timeout bounds the wait), since closing now would reset the stream and drop the frame.
        do {
            if try tunnel?.hasUnsentBytes() == true { return writeBlocked(waitingFor: .readable) }
        } catch {
            return streamFailed(error)
        }
        // Everything is sent, the close frame last: the stream ends as a FIN ends a TCP connection.
        tunnel?.finishSending()
        #endif
        closeNow()
    }

    /// A write waits for the descriptor to have `interest`: writable for a full socket, readable for a closed HTTP/2
    /// window. A task lent the connection hands the rest to the loop.
    private func writeBlocked(waitingFor interest: ByteStreamResult.Interest) {
        if isOffLoop {
            handedOff = true
            return handToLoop { [self] in flush() }
        }
        let waits = (writable: interest == .writable, readable: interest == .readable)
        guard waits != (wantsWritable, writeWaitsForReadable) else { return }
        (wantsWritable, writeWaitsForReadable) = waits
        updateInterest()
    }

    private func updateInterest() {
        if isOffLoop { return handToLoop { [self] in updateInterest() } }
        guard isRegistered, let stream else { return }
        var interest: LoopInterest = []
        if !isReadingPaused || phase == .upgrading || writeWaitsForReadable || watchesTunnelWhilePaused {
            interest.insert(.readable)
        }
        if wantsWritable { interest.insert(.writable) }
        do {
            try loop.setInterest(interest, for: stream.descriptor)
        } catch {
            streamFailed(error)
        }
    }

    private func streamFailed(_ error: any Error) {
        if isOffLoop {
            handedOff = true
            return handToLoop { [self] in streamFailed(error) }
        }
        let failure =
            (error as? RequestError)
            ?? .transport(error, detail: "the WebSocket connection to \(setup.key.host) port \(setup.key.port) failed")
        if phase == .upgrading || phase == .connecting { return failOpening(failure) }
        if finalError == nil { finalError = failure }
        if phase == .open, machine != nil {
            run(machine?.streamFailed() ?? .none)
        }
        closeNow()
    }

    /// The stream closes once what waits is written (bounded by the close timeout).
    private func shutDown() {
        guard phase == .open else { return }
        phase = .draining
        flush()
        guard phase == .draining else { return }
        armClose(after: setup.configuration.closeTimeout)
    }

    /// The connection is over: the stream closes, the timers stop, everyone waiting learns it.
    private func closeNow() {
        if isOffLoop {
            handedOff = true
            return handToLoop { [self] in closeNow() }
        }
        guard phase != .closed else { return }
        phase = .closed
        for timer in [pingTimer, closeTimer, handshakeTimer] {
            if let timer { loop.cancel(timer) }
        }
        (pingTimer, closeTimer, handshakeTimer) = (nil, nil, nil)
        closeStream()
        finish(.closed(.abnormalClosure, reason: ""))
        let closed = finalError ?? .webSocket(.closed, "the WebSocket connection closed")
        let (senders, closers) = (sendWaiters, closeWaiters)
        (sendWaiters, closeWaiters) = ([], [])
        for sender in senders { sender.resume(returning: .failure(closed)) }
        let outcome: Result<Void, RequestError> =
            switch finalError?.webSocketFailure {
            case .closeTimeout?: .failure(closed)
            default: .success(())
            }
        for closer in closers { closer.resume(returning: outcome) }
    }

    private func closeStream() {
        guard let stream else { return }
        if isRegistered { loop.deregister(stream.descriptor) }
        isRegistered = false
        stream.close()
        self.stream = nil
        #if canImport(CNghttp2)
        tunnel = nil
        #endif
    }
}

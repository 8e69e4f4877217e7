import Foundation
import RequestKit

/// One accepted connection, served on one of the server's event loops: the TLS handshake, reading and parsing
/// requests, and writing responses as the socket takes them, with loop timers for every wait. Route handlers and
/// body closures, which may block, run on ``HandlerThreads`` and hand their results back to the loop.
///
/// Everything but ``socket`` (whose `shutdownBoth()` any thread may call) is touched only on ``loop``.
///
/// ```swift
/// let connection = ServerConnection(core: core, loop: loop, id: 1, stream: ConnectionStream(socket: socket))
/// loop.execute { connection.start() }
/// ```
final class ServerConnection: EventLoopHandler, @unchecked Sendable {
    // Safe: every mutable member is only touched on `loop`'s thread.
    private enum Phase {
        case handshaking
        case reading
        case handling
        case responding
        case lingering
        case closed
    }

    private enum Outcome {
        case keepOpen
        case close
        case clientGone
    }

    /// The most bytes held from a client while it is not its turn to be read (pipelined requests): beyond it,
    /// reading waits for the response to finish.
    private static let heldBytesLimit = 1 << 20
    /// The fewest bytes of a chunked body worth parsing again before its end can have arrived.
    private static let eagerChunkedBytes = 256 * 1024

    let core: ServerCore
    let loop: EventLoop
    let id: Int
    let socket: SocketDescriptor
    /// Whether the socket is closed: from then on its number may be another socket's (a client's in the same
    /// process, say), so no thread may shut it down any more.
    private let isSocketClosed = Locked(false)
    private let stream: ConnectionStream
    private let reader = ConnectionReader()
    private var phase = Phase.handshaking
    private var interest: LoopInterest = []
    private var isReadingPaused = false
    private var isWriteBlocked = false
    private var handshakeWantsWrite = false
    /// The client ended its side (or the server stopped): no more reads.
    private var peerEnded = false

    private var output: [(data: Data, sent: Int, done: ((Bool) -> Void)?)] = []
    private var drainAction: (() -> Void)?
    private var readTimer: LoopTimer?
    private var waitTimer: LoopTimer?

    private var served = 0
    private var head: HTTPRequestHead?
    private var receivedAt = ContinuousClock.now
    private var lastChunkedAttempt = 0

    private var request = TestRequest(method: "GET", target: "/")
    private var wantsKeepAlive = false
    private var ending: OnceAction?
    private var plan: ResponsePlan?
    private var body = TestResponseWriter.State(framing: .identity, discardsBody: false)
    private var steps: AnyIterator<BodyStep>?
    private var channel: ResponseChannel?
    private var isClosureRunning = false
    #if canImport(CNghttp2)
    /// The connection's HTTP/2 session, once the client opened with the HTTP/2 preface (in the HTTP/2 mode).
    private var http2: HTTP2ServerStreams?
    #endif
    /// The connection's WebSocket conversation, once a route answered an upgrade with `101`.
    private var webSocket: ServerWebSocketSession?

    init(core: ServerCore, loop: EventLoop, id: Int, stream: ConnectionStream) {
        self.core = core
        self.loop = loop
        self.id = id
        self.socket = stream.socket
        self.stream = stream
    }

    // MARK: Start and readiness

    /// Starts watching the socket: the TLS handshake first in the TLS mode, else the first request.
    func start() {
        do {
            try loop.register(socket.rawValue, interest: [.readable], handler: self)
            interest = [.readable]
        } catch {
            closeNow()
            return
        }
        if core.isStopped {
            closeNow()
            return
        }
        armReadTimer()
        if stream.isTLS {
            advanceHandshake()
        } else {
            phase = .reading
        }
    }

    func descriptorIsReady(_ descriptor: Int32, readable: Bool, writable: Bool) {
        switch phase {
        case .closed:
            return
        case .handshaking:
            advanceHandshake()
        case .lingering:
            if writable { flushOutput() }
            if readable { discardIncoming() }
        case .reading, .handling, .responding:
            if writable { flushOutput() }
            if readable, !peerEnded, !isReadingPaused { readAvailable() }
        }
    }

    private func updateInterest() {
        guard phase != .closed else { return }
        var wanted: LoopInterest = []
        if phase == .handshaking {
            wanted = handshakeWantsWrite ? [.writable] : [.readable]
        } else {
            if !peerEnded && !isReadingPaused { wanted.insert(.readable) }
            if isWriteBlocked { wanted.insert(.writable) }
        }
        guard wanted != interest else { return }
        do {
            try loop.setInterest(wanted, for: socket.rawValue)
            interest = wanted
        } catch {
            peerLost()
            closeNow()
        }
    }

    private func advanceHandshake() {
        switch stream.handshake() {
        case .done:
            if stream.isSessionResumed { core.countResumedSession() }
            phase = .reading
            updateInterest()
            readAvailable()
        case .wouldBlock(let wantsWrite):
            handshakeWantsWrite = wantsWrite
            updateInterest()
        case .ended, .failed:
            // The client rejected the certificate (or sent none when one is required) and has been told why by
            // a TLS alert: stop sending and let it read that before the connection closes.
            socket.shutdownWrite()
            phase = .lingering
            cancelTimers()
            updateInterest()
            waitTimer = loop.schedule(after: 1) { [self] in closeNow() }
        }
    }

    // MARK: Reading

    private func readAvailable() {
        var rounds = 0
        var received = false
        while rounds < 16, !peerEnded, phase != .closed {
            if phase != .reading, reader.bufferedCount >= Self.heldBytesLimit {
                isReadingPaused = true
                updateInterest()
                break
            }
            rounds += 1
            let progress = withUnsafeTemporaryAllocation(byteCount: 64 * 1024, alignment: 1) { scratch in
                let progress = stream.receive(into: scratch)
                if case .done(let count) = progress {
                    reader.append(UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
                }
                return progress
            }
            switch progress {
            case .done:
                received = true
                continue
            case .wouldBlock:
                rounds = Int.max
            case .ended, .failed:
                peerEnded = true
                updateInterest()
                if received, phase == .reading { parseAvailable() }
                clientEnded(failed: progress == .failed)
                return
            }
        }
        if received, phase == .reading {
            armReadTimer()
            parseAvailable()
        }
    }

    /// The client closed its side or the connection failed.
    private func clientEnded(failed: Bool) {
        if let webSocket, phase == .reading { return webSocket.inputEnded(failed: failed) }
        switch phase {
        case .reading:
            if head != nil {
                ending?.run()
                core.requestAborted()
            }
            closeNow()
        case .handling:
            // The handler's answer is still written (a client may close its sending side and read on); a stopped
            // server or a failed connection ends it now.
            if failed || core.isStopped { peerLost() }
        case .responding:
            if failed || core.isStopped || waitTimer != nil || isClosureRunning { peerLost() }
        case .handshaking, .lingering:
            closeNow()
        case .closed:
            break
        }
    }

    private func parseAvailable() {
        if let webSocket {
            let count = reader.bufferedCount
            if count > 0, let bytes = try? reader.read(count: count) { webSocket.received(bytes) }
            reader.compact()
            return
        }
        #if canImport(CNghttp2)
        if switchesToHTTP2() { return }
        #endif
        while phase == .reading {
            if head == nil {
                let mark = reader.start
                do {
                    let parsed = try HTTPRequestHead.parse(from: reader, configuration: core.configuration)
                    head = parsed
                    receivedAt = .now
                    lastChunkedAttempt = 0
                    ending = OnceAction { [core] in core.requestEnding() }
                    core.requestStarted()
                    armReadTimer()
                    if parsed.expectsContinue { enqueue(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
                } catch let error as HTTPRequestError {
                    core.requestRejected()
                    sendError(error)
                    return
                } catch {
                    reader.rewind(to: mark)
                    if reader.bufferedCount == 0 { reader.compact() }
                    if peerEnded { closeNow() }
                    return
                }
            }
            guard let head else { return }
            let received: (Data, [(name: String, value: String)])
            switch head.framing {
            case .none:
                received = (Data(), [])
            case .length(let length):
                guard let bytes = try? reader.read(count: length) else { return }
                received = (Data(bytes), [])
            case .chunked:
                guard shouldTryChunkedBody() else { return }
                let mark = reader.start
                do {
                    received = try ChunkedBodyDecoder(reader: reader, configuration: core.configuration).decode()
                } catch let error as HTTPRequestError {
                    core.requestRejected()
                    ending?.run()
                    sendError(error)
                    return
                } catch {
                    reader.rewind(to: mark)
                    return
                }
            }
            self.head = nil
            dispatch(
                TestRequest(
                    method: head.method, target: head.target, headers: head.headers, body: received.0,
                    httpVersion: head.httpVersion, trailers: received.1, connectionID: id, receivedAt: receivedAt),
                keepAlive: head.wantsKeepAlive)
        }
    }

    #if canImport(CNghttp2)
    /// The connection preface of HTTP/2 (RFC 9113 §3.4), which a client with prior knowledge, or one that agreed
    /// on `h2` by ALPN, sends first.
    private static let http2Preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// In the HTTP/2 mode, hands what was read to the HTTP/2 session, starting one when a new connection opens
    /// with the preface; `false` when the connection speaks HTTP/1.1.
    private func switchesToHTTP2() -> Bool {
        if http2 == nil {
            guard let settings = core.configuration.http2, served == 0, head == nil else { return false }
            switch reader.begins(with: Self.http2Preface) {
            case false?: return false
            case nil: return !peerEnded
            case true?:
                guard let session = HTTP2ServerStreams(connection: self, core: core, settings: settings) else {
                    return false
                }
                http2 = session
            }
        }
        guard let http2 else { return false }
        let count = reader.bufferedCount
        if count > 0, let bytes = try? reader.read(count: count) {
            bytes.withUnsafeBytes { _ = http2.receive($0) }
        }
        reader.compact()
        return true
    }

    /// The HTTP/2 session has nothing more to read or write (a `GOAWAY` went either way, or the protocol broke):
    /// the connection closes once its last bytes are written.
    func http2Ended() {
        lingeringClose()
    }

    /// Cuts the connection once what is queued has been written, as a server that dies after its last write.
    func shutDownWhenWritten() {
        whenDrained { [self] in shutDownSocket() }
    }
    #endif

    /// Whether a chunked body may have arrived whole: parsing it again on every read would cost time growing with
    /// the square of its size, so a large one is parsed again only when a read ends with an empty line or the
    /// buffer has doubled.
    private func shouldTryChunkedBody() -> Bool {
        let buffered = reader.bufferedCount
        defer { lastChunkedAttempt = max(lastChunkedAttempt, buffered) }
        if buffered < Self.eagerChunkedBytes || buffered >= 2 * lastChunkedAttempt { return true }
        return reader.contains([13, 10, 13, 10], from: reader.end - 4)
    }

    private func armReadTimer() {
        if let readTimer { loop.cancel(readTimer) }
        let isIdle = phase != .handshaking && head == nil && reader.bufferedCount == 0
        var timeout = isIdle && served > 0 ? core.configuration.keepAliveTimeout : core.configuration.readTimeout
        #if canImport(CNghttp2)
        if http2 != nil { timeout = core.configuration.keepAliveTimeout }
        #endif
        if webSocket != nil { timeout = core.configuration.keepAliveTimeout }
        readTimer = loop.schedule(after: timeout.timeInterval) { [self] in readTimedOut(wasIdle: isIdle) }
    }

    private func readTimedOut(wasIdle: Bool) {
        readTimer = nil
        // A WebSocket stays open while the client keeps it; the conversation's own timers end it.
        if webSocket != nil, phase == .reading { return armReadTimer() }
        #if canImport(CNghttp2)
        if let http2, phase == .reading {
            // An HTTP/2 connection stays while a stream is open; idle, it says GOAWAY and closes.
            if http2.hasOpenStreams { return armReadTimer() }
            http2.goAway()
            return lingeringClose()
        }
        #endif
        switch phase {
        case .handshaking:
            closeNow()
        case .reading:
            if head != nil {
                core.requestRejected()
                ending?.run()
                sendError(HTTPRequestError(status: 408, message: "the request body did not arrive in time"))
            } else if wasIdle || reader.bufferedCount == 0 {
                lingeringClose()
            } else {
                core.requestRejected()
                sendError(HTTPRequestError(status: 408, message: "the request head did not arrive in time"))
            }
        default:
            break
        }
    }

    // MARK: Answering

    private func dispatch(_ request: TestRequest, keepAlive: Bool) {
        if let readTimer { loop.cancel(readTimer) }
        readTimer = nil
        core.requestReceived(request)
        phase = .handling
        served += 1
        self.request = request
        wantsKeepAlive = keepAlive
        switch core.route(for: request) {
        case .response(let response):
            respond(response)
        case .handler(let handler, let routed):
            core.runOnHandlerThread { [self] in
                let response = handler(routed)
                loop.execute { [self] in respond(response) }
            }
        }
    }

    private func respond(_ response: TestResponse) {
        guard phase == .handling else {
            ending?.run()
            core.requestAborted()
            return
        }
        if let plan = response.webSocket { return upgrade(to: plan, headers: response.headers) }
        let limitReached = core.configuration.maxRequestsPerConnection.map { served >= $0 } ?? false
        let keepAlive = wantsKeepAlive && !limitReached && !core.isStopped
        let plan = ResponsePlan(response, for: request, keepAlive: keepAlive)
        self.plan = plan
        body = TestResponseWriter.State(framing: plan.framing, discardsBody: plan.discardsBody)
        phase = .responding
        waitForRelease(
            response.hold, until: response.hold.map { .now + $0.longest },
            checkingAfter: ResponseHold.firstCheckInterval,
            then: response.delay)
    }

    /// Waits on loop timers while `hold` holds the response back (at most until `deadline`, asking again after
    /// `interval`, then twice as long each time up to a limit), then for `delay`, then starts the body; a client that
    /// leaves meanwhile ends the response.
    private func waitForRelease(
        _ hold: ResponseHold?, until deadline: ContinuousClock.Instant?, checkingAfter interval: Duration,
        then delay: Duration?
    ) {
        if let hold, let deadline, ContinuousClock.now < deadline, !hold.isReleased() {
            if peerEnded { return finishResponse(.clientGone) }
            let next = min(interval * 2, ResponseHold.longestCheckInterval)
            waitTimer = loop.schedule(after: interval.timeInterval) { [self] in
                waitTimer = nil
                waitForRelease(hold, until: deadline, checkingAfter: next, then: delay)
            }
            return
        }
        guard let delay else { return startBody() }
        if peerEnded { return finishResponse(.clientGone) }
        waitTimer = loop.schedule(after: delay.timeInterval) { [self] in
            waitTimer = nil
            startBody()
        }
    }

    private func startBody() {
        guard let plan else { return }
        switch plan.source {
        case .bytes:
            ending?.run()
            enqueue(plan.head)
            whenDrained { [self] in finishResponse(plan.closeAfter ? .close : .keepOpen) }
        case .steps(let source):
            if !plan.head.isEmpty { enqueue(plan.head) }
            steps = source.make()
            advanceSteps()
        case .closure(let write):
            if !plan.head.isEmpty { enqueue(plan.head) }
            let channel = ResponseChannel(loop: loop, connection: self)
            if peerEnded { channel.markGone() }
            self.channel = channel
            let ending = self.ending
            let writer = TestResponseWriter(
                channel: channel, framing: plan.framing, discardsBody: plan.discardsBody,
                beforeLastBytes: { ending?.run() })
            isClosureRunning = true
            core.runOnHandlerThread { [self] in
                var failed = false
                do { try write(writer) } catch { failed = true }
                let state = writer.state.withLock { $0 }
                loop.execute { [self] in closureEnded(state: state, failed: failed) }
            }
        }
    }

    private func closureEnded(state: TestResponseWriter.State, failed: Bool) {
        isClosureRunning = false
        channel = nil
        guard phase == .responding else { return }
        body = state
        endBody(failed: failed)
    }

    /// Plays body steps until one waits (for the socket or a timer), a few at a time so that other connections
    /// on the loop get their turn.
    private func advanceSteps() {
        var budget = 16
        while phase == .responding, waitTimer == nil {
            if !output.isEmpty {
                drainAction = { [self] in advanceSteps() }
                return
            }
            guard budget > 0 else {
                waitTimer = loop.schedule(after: 0) { [self] in
                    waitTimer = nil
                    advanceSteps()
                }
                return
            }
            budget -= 1
            guard let step = steps?.next() else { return endBody(failed: false) }
            switch step {
            case .write(let data):
                if body.clientDisconnected || body.isClosed { return endBody(failed: true) }
                body.bytesWritten += data.count
                guard !body.discardsBody, !body.isFinished, !data.isEmpty else { continue }
                if body.framing == .chunked {
                    var chunk = Data(String(data.count, radix: 16).utf8)
                    chunk.append(contentsOf: [13, 10])
                    chunk.append(data)
                    chunk.append(contentsOf: [13, 10])
                    enqueue(chunk)
                } else {
                    enqueue(data)
                }
            case .writeRaw(let data):
                body.framing = .raw
                enqueue(data)
            case .pause(let duration):
                if peerEnded {
                    body.clientDisconnected = true
                    return endBody(failed: true)
                }
                waitTimer = loop.schedule(after: duration.timeInterval) { [self] in
                    waitTimer = nil
                    advanceSteps()
                }
            case .finish(let trailers):
                finishChunkedBody(trailers: trailers)
            case .close:
                body.isClosed = true
                shutDownSocket()
                return endBody(failed: false)
            }
        }
    }

    private func finishChunkedBody(trailers: [(name: String, value: String)] = []) {
        guard body.framing == .chunked, !body.isFinished, !body.discardsBody else {
            body.isFinished = true
            return
        }
        body.isFinished = true
        ending?.run()
        var text = "0\r\n"
        for (name, value) in trailers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        enqueue(Data(text.utf8))
    }

    /// The body is over (its closure returned or its steps ran out): works out the connection's fate, as the
    /// writer's state says, once every byte has been written.
    private func endBody(failed: Bool) {
        steps = nil
        let outcome: Outcome
        if body.clientDisconnected {
            outcome = .clientGone
        } else if body.isClosed || failed || body.framing == .raw {
            outcome = .close
        } else {
            if body.framing == .chunked && !body.isFinished { finishChunkedBody() }
            if plan?.closeAfter == true {
                outcome = .close
            } else if body.framing == .identity, let declared = plan?.declaredLength, body.bytesWritten != declared {
                outcome = .close
            } else {
                outcome = .keepOpen
            }
        }
        if outcome == .clientGone { return finishResponse(.clientGone) }
        whenDrained { [self] in finishResponse(outcome) }
    }

    private func finishResponse(_ outcome: Outcome) {
        guard phase == .responding else { return }
        if let waitTimer { loop.cancel(waitTimer) }
        waitTimer = nil
        ending?.run()
        ending = nil
        plan = nil
        steps = nil
        drainAction = nil
        switch outcome {
        case .clientGone:
            core.requestAborted()
            closeNow()
        case .close:
            lingeringClose()
        case .keepOpen:
            phase = .reading
            isReadingPaused = false
            updateInterest()
            armReadTimer()
            parseAvailable()
            if phase == .reading, peerEnded, head == nil { closeNow() }
        }
    }

    /// Answers an upgrade: a `101` and the WebSocket conversation of `plan` from then on, or the refusal of a request
    /// that is no valid upgrade.
    private func upgrade(to plan: TestWebSocketPlan, headers: [(name: String, value: String)]) {
        switch ServerWebSocketHandshake.answer(request, plan: plan, extraHeaders: headers) {
        case .refused(let refusal):
            respond(refusal)
        case .accepted(let head, let compression):
            ending?.run()
            ending = nil
            phase = .reading
            let session = ServerWebSocketSession(connection: self, plan: plan, compression: compression)
            webSocket = session
            enqueue(head)
            armReadTimer()
            session.start()
            parseAvailable()
        }
    }

    /// The WebSocket conversation is over: the connection closes once its last bytes are written.
    func webSocketEnded() {
        lingeringClose()
    }

    private func sendError(_ error: HTTPRequestError) {
        let response = TestResponse.text(error.message + "\n", status: error.status)
        let plan = ResponsePlan(response, for: TestRequest(method: "GET", target: "/"), keepAlive: false)
        head = nil
        phase = .responding
        enqueue(plan.head)
        whenDrained { [self] in lingeringClose() }
    }

    /// The client is gone for certain: a write failed, or it left during a wait or a streamed body.
    private func peerLost() {
        body.clientDisconnected = true
        channel?.markGone()
        guard phase == .responding else { return }
        if isClosureRunning { return }  // the closure ends soon, and `closureEnded` finishes the response
        finishResponse(.clientGone)
    }

    /// The body closure cut the connection (``TestResponseWriter/close()``).
    func cut() {
        peerEnded = true
        updateInterest()
    }

    // MARK: Writing

    /// Queues `data` and writes what the socket takes now; `done` runs once all of it is written (`true`) or the
    /// connection fails first (`false`).
    func enqueue(_ data: Data, done: ((Bool) -> Void)? = nil) {
        guard phase != .closed, !body.clientDisconnected || done == nil else {
            done?(false)
            return
        }
        output.append((data, 0, done))
        if !isWriteBlocked { flushOutput() }
    }

    private func flushOutput() {
        var failed = false
        while !output.isEmpty {
            let entry = output[0]
            if entry.sent == entry.data.count {
                output.removeFirst()
                entry.done?(true)
                continue
            }
            let progress = entry.data.withUnsafeBytes { bytes in
                stream.send(UnsafeRawBufferPointer(rebasing: bytes[entry.sent...]))
            }
            switch progress {
            case .done(let count):
                output[0].sent += count
            case .wouldBlock:
                isWriteBlocked = true
                updateInterest()
                return
            case .ended, .failed:
                failed = true
            }
            if failed { break }
        }
        isWriteBlocked = false
        if failed {
            let pending = output
            output = []
            drainAction = nil
            for entry in pending { entry.done?(false) }
            updateInterest()
            if phase == .lingering {
                closeNow()
            } else {
                peerLost()
                if phase == .reading || phase == .handling { closeNow() }
            }
            return
        }
        updateInterest()
        if let action = drainAction {
            drainAction = nil
            action()
        }
    }

    private func whenDrained(_ action: @escaping () -> Void) {
        if output.isEmpty {
            action()
        } else {
            drainAction = action
        }
    }

    // MARK: Closing

    /// Stops sending, then reads and discards what the client still sends (for up to a second) so that closing
    /// does not reset the connection before the client has read the last response.
    private func lingeringClose() {
        guard phase != .closed, phase != .lingering else { return }
        phase = .lingering
        cancelTimers()
        whenDrained { [self] in
            guard phase == .lingering else { return }
            stream.shutdownWrite()
            if peerEnded || core.isStopped { return closeNow() }
            waitTimer = loop.schedule(after: 1) { [self] in closeNow() }
            updateInterest()
        }
    }

    private func discardIncoming() {
        guard !peerEnded else { return }
        var rounds = 0
        while rounds < 16 {
            rounds += 1
            let result = withUnsafeTemporaryAllocation(byteCount: 16 * 1024, alignment: 1) { scratch in
                recv(socket.rawValue, scratch.baseAddress, scratch.count, 0)
            }
            if result > 0 { continue }
            if result < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
            peerEnded = true
            return closeNow()
        }
    }

    private func cancelTimers() {
        if let readTimer { loop.cancel(readTimer) }
        if let waitTimer { loop.cancel(waitTimer) }
        readTimer = nil
        waitTimer = nil
    }

    /// Shuts the socket down in both directions, from any thread, unless it is closed already.
    func shutDownSocket() {
        isSocketClosed.withLock { isClosed in
            if !isClosed { socket.shutdownBoth() }
        }
    }

    /// Closes the socket, once, so that no shutdown from another thread can reach its number afterwards.
    func closeSocket() {
        isSocketClosed.withLock { isClosed in
            guard !isClosed else { return }
            isClosed = true
            socket.close()
        }
    }

    /// Closes the connection now, failing whatever still waits to be written.
    func closeNow() {
        guard phase != .closed else { return }
        if phase == .reading, head != nil {
            ending?.run()
        }
        phase = .closed
        cancelTimers()
        let pending = output
        output = []
        drainAction = nil
        steps = nil
        for entry in pending { entry.done?(false) }
        channel?.markGone()
        #if canImport(CNghttp2)
        http2?.connectionClosed()
        #endif
        webSocket?.connectionClosed()
        loop.deregister(socket.rawValue)
        core.connectionClosed(self)
    }

    /// Ends the connection because the server stops.
    func stopServing() {
        peerEnded = true
        body.clientDisconnected = true
        channel?.markGone()
        if phase == .responding {
            finishResponse(.clientGone)
        } else {
            closeNow()
        }
    }
}

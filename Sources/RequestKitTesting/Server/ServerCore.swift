import Foundation
import RequestKit

/// The running server behind a ``TestServer``: the listening socket, its connections on the shared
/// ``ServerLoops``, and the shared state.
///
/// Loops and handler threads hold the core rather than the ``TestServer``, so dropping the last ``TestServer``
/// reference still runs its `deinit`, which stops the core.
///
/// ```swift
/// let core = try ServerCore(configuration: .init())
/// try core.start()
/// defer { core.stop() }
/// ```
///
/// `stop()` never blocks: it shuts the sockets down and the loops close them; `stopped()` waits for that, and
/// for every handler still running, without holding a thread.
final class ServerCore: Sendable {
    /// What answers a request: a response made at once on the loop, or a handler to run on a handler thread.
    enum RouteChoice {
        case response(TestResponse)
        case handler(@Sendable (TestRequest) -> TestResponse, TestRequest)
    }

    /// The built-in routes whose answer takes long enough to compute (megabytes generated or hashed) that it is
    /// made on a handler thread rather than on a loop that other connections share.
    private static let heavyBuiltInRoutes: Set<Substring> = ["bytes", "range", "upload", "stream", "websocket"]

    let configuration: TestServer.Configuration
    let listener: SocketDescriptor
    let port: Int
    let state = Locked(ServerState())
    /// Entered for the listener, each open connection and each running handler.
    private let work = DispatchGroup()
    private let acceptor = Locked<Acceptor?>(nil)
    #if canImport(COpenSSL)
    /// The server's TLS context in TLS mode.
    private let tlsContext: ServerTLSContext?
    #endif

    init(configuration: TestServer.Configuration) throws {
        self.configuration = configuration
        #if canImport(COpenSSL)
        tlsContext = try configuration.tls.map {
            try ServerTLSContext($0, offersHTTP2: TestServer.HTTP2.isSupported && configuration.http2 != nil)
        }
        #else
        if configuration.tls != nil { throw TestServer.TLSUnavailable() }
        #endif
        listener = try SocketDescriptor.listenOnLoopback(backlog: Int32(clamping: configuration.listenBacklog))
        do {
            port = try listener.localPort()
        } catch {
            listener.close()
            throw error
        }
    }

    /// Starts accepting connections on one of the shared loops.
    ///
    /// - Throws: `POSIXError` when the system refuses the loops' threads; the listening socket is then closed.
    func start() throws {
        let loops: ServerLoops
        do {
            loops = try ServerLoops.shared()
        } catch {
            listener.close()
            throw error
        }
        listener.setNonBlocking()
        let acceptor = Acceptor(core: self, loop: loops.next(), loops: loops)
        self.acceptor.withLock { $0 = acceptor }
        work.enter()
        acceptor.loop.execute { acceptor.start() }
    }

    /// Whether `stop()` has been called.
    var isStopped: Bool { state.withLock { $0.isStopped } }

    /// Stops accepting and shuts down every open connection, returning at once; the loops close the sockets.
    func stop() {
        let connections: [ServerConnection]? = state.withLock { state in
            guard !state.isStopped else { return nil }
            state.isStopped = true
            if !state.isListenerClosed { listener.shutdownBoth() }
            for connection in state.connections.values { connection.shutDownSocket() }
            return Array(state.connections.values)
        }
        guard let connections else { return }
        if let acceptor = acceptor.withLock({ $0 }) {
            acceptor.loop.execute { acceptor.stopAccepting() }
        }
        for connection in connections {
            connection.loop.execute { connection.stopServing() }
        }
    }

    /// Stops the server and suspends, without blocking a thread, until every socket is closed and every handler
    /// has returned.
    func stopped() async {
        stop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            work.notify(queue: .global()) { continuation.resume() }
        }
    }

    /// Takes an accepted socket: counts it and starts serving it on `loop`.
    func accepted(_ socket: SocketDescriptor, on loop: EventLoop) {
        socket.setNonBlocking()
        let stream: ConnectionStream?
        #if canImport(COpenSSL)
        stream = tlsContext.map { ConnectionStream(socket: socket, context: $0) } ?? ConnectionStream(socket: socket)
        #else
        stream = ConnectionStream(socket: socket)
        #endif
        let connection: ServerConnection? = state.withLock { state in
            guard !state.isStopped, let stream else { return nil }
            let id = state.nextConnectionID
            state.nextConnectionID += 1
            let connection = ServerConnection(core: self, loop: loop, id: id, stream: stream)
            state.connections[id] = connection
            state.stats.totalConnections += 1
            state.stats.openConnections += 1
            state.stats.peakConnections = max(state.stats.peakConnections, state.stats.openConnections)
            return connection
        }
        guard let connection else {
            socket.close()
            return
        }
        work.enter()
        loop.execute { connection.start() }
    }

    /// Forgets a connection whose loop has deregistered its socket, and closes the socket.
    func connectionClosed(_ connection: ServerConnection) {
        state.withLock { state in
            state.connections[connection.id] = nil
            state.stats.openConnections -= 1
        }
        connection.closeSocket()
        work.leave()
    }

    /// Closes the listening socket, once, so that no shutdown can reach its number afterwards.
    func closeListener() {
        state.withLock { state in
            guard !state.isListenerClosed else { return }
            state.isListenerClosed = true
            listener.close()
        }
    }

    /// The listener's socket is closed.
    func listenerClosed() {
        work.leave()
    }

    /// Runs `body` on a handler thread, counted until it returns.
    func runOnHandlerThread(_ body: @escaping @Sendable () -> Void) {
        work.enter()
        HandlerThreads.shared.run { [work] in
            body()
            work.leave()
        }
    }

    /// Counts a TLS handshake that resumed an earlier session.
    func countResumedSession() {
        state.withLock { $0.stats.resumedTLSSessions += 1 }
    }

    /// Counts a request whose head has arrived.
    func requestStarted() {
        state.withLock { state in
            state.stats.activeRequests += 1
            state.stats.peakActiveRequests = max(state.stats.peakActiveRequests, state.stats.activeRequests)
        }
    }

    /// Records a completely received request.
    func requestReceived(_ request: TestRequest) {
        state.withLock { state in
            state.stats.requestCount += 1
            state.requests.append(request)
        }
    }

    /// Counts the end of an active request: called just before the last bytes of its response are written, so
    /// a client can never see the answer, start its next request and find this one still counted.
    func requestEnding() {
        state.withLock { $0.stats.activeRequests -= 1 }
    }

    /// Counts a request whose client went away before it was answered.
    func requestAborted() {
        state.withLock { $0.stats.abortedRequests += 1 }
    }

    /// Counts a request the server rejected as malformed or over a limit.
    func requestRejected() {
        state.withLock { $0.stats.rejectedRequests += 1 }
    }

    /// What answers `request`: the newest matching custom route's handler, else a built-in route (made on a
    /// handler thread when it is heavy), else `404`; `405` when only another method's route matches the path.
    func route(for request: TestRequest) -> RouteChoice {
        let routes = state.withLock { $0.routes }
        var pathMatchedMethods: [String] = []
        for route in routes.reversed() {
            guard let parameters = route.match(path: request.path) else { continue }
            guard route.accepts(method: request.method) else {
                pathMatchedMethods.append(route.method ?? "")
                continue
            }
            var request = request
            request.pathParameters = parameters
            return .handler(route.handler, request)
        }
        if !pathMatchedMethods.isEmpty {
            var response = TestResponse.text("method not allowed: \(request.method)", status: 405)
            response.headers.append(("Allow", pathMatchedMethods.joined(separator: ", ")))
            return .response(response)
        }
        let builtIn = BuiltInRoutes(core: self)
        let name = request.path.split(separator: "/").first ?? ""
        if Self.heavyBuiltInRoutes.contains(name) || request.body.count > 64 * 1024 {
            return .handler({ builtIn.response(for: $0) }, request)
        }
        return .response(builtIn.response(for: request))
    }

    /// Claims the single connection drop that `/sse?drop=K` performs per server; `true` only the first time.
    func claimEventStreamDrop() -> Bool {
        state.withLock { state in
            defer { state.hasDroppedEventStream = true }
            return !state.hasDroppedEventStream
        }
    }

    /// Counts one more request to `path` for `/sequence/{codes}` and returns its 1-based number.
    func nextAttempt(for path: String) -> Int {
        state.withLock { state in
            state.attemptsByPath[path, default: 0] += 1
            return state.attemptsByPath[path, default: 1]
        }
    }
}

import Foundation
import RequestKit

/// The running server behind a ``TestServer``: the listening socket, the accept thread and the shared state.
///
/// Threads hold the core rather than the ``TestServer``, so dropping the last ``TestServer`` reference still runs
/// its `deinit`, which stops the core.
///
/// ```swift
/// let core = try ServerCore(configuration: .init())
/// try core.start()
/// defer { core.stop() }
/// ```
///
/// `stop()` never blocks: it shuts the sockets down and the threads end by themselves; `stopped()` waits for
/// them without holding a thread.
final class ServerCore: Sendable {
    /// The name given to connection threads, which shows in debuggers and thread listings.
    static let connectionThreadName = "RequestKitTesting.TestServer.connection"

    let configuration: TestServer.Configuration
    let listener: SocketDescriptor
    let port: Int
    let state = Locked(ServerState())
    private let threads = DispatchGroup()
    #if canImport(COpenSSL)
    /// The server's TLS context in TLS mode.
    private let tlsContext: ServerTLSContext?
    #endif

    init(configuration: TestServer.Configuration) throws {
        self.configuration = configuration
        #if canImport(COpenSSL)
        tlsContext = try configuration.tls.map(ServerTLSContext.init)
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

    /// Starts the accept thread.
    ///
    /// - Throws: `POSIXError` when the system refuses the thread; the listening socket is then closed.
    func start() throws {
        threads.enter()
        do {
            try DetachedThread.start(name: "RequestKitTesting.TestServer.accept") { [self] in
                acceptLoop()
                listener.close()
                threads.leave()
            }
        } catch {
            listener.close()
            threads.leave()
            throw error
        }
    }

    /// Whether `stop()` has been called.
    var isStopped: Bool { state.withLock { $0.isStopped } }

    /// Stops accepting and shuts down every open connection, returning at once; the accept and connection
    /// threads notice and end by themselves, closing their sockets.
    func stop() {
        state.withLock { state in
            guard !state.isStopped else { return }
            state.isStopped = true
            listener.shutdownBoth()
            for socket in state.openSockets.values { socket.shutdownBoth() }
        }
    }

    /// Stops the server and suspends, without blocking a thread, until every server thread has ended and
    /// closed its socket.
    func stopped() async {
        stop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            threads.notify(queue: .global()) { continuation.resume() }
        }
    }

    private func acceptLoop() {
        while !isStopped {
            // `stop()` shuts the listener down, which wakes this wait at once; the cap bounds it where it does not.
            guard listener.waitForReadable(milliseconds: 1000) == .readable else { continue }
            guard let socket = listener.acceptConnection() else {
                // Out of descriptors or a transient failure: back off briefly instead of spinning on poll().
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            let connectionID: Int? = state.withLock { state in
                guard !state.isStopped else { return nil }
                let id = state.nextConnectionID
                state.nextConnectionID += 1
                state.openSockets[id] = socket
                state.stats.totalConnections += 1
                state.stats.openConnections += 1
                state.stats.peakConnections = max(state.stats.peakConnections, state.stats.openConnections)
                return id
            }
            guard let connectionID else {
                socket.close()
                return
            }
            threads.enter()
            do {
                try DetachedThread.start(name: Self.connectionThreadName) { [self] in
                    if let stream = connectionStream(on: socket) {
                        HTTPConnection(core: self, socket: stream, id: connectionID).run()
                    }
                    connectionClosed(id: connectionID, socket: socket)
                    threads.leave()
                }
            } catch {
                // No thread to serve it: the client sees the connection close at once.
                connectionClosed(id: connectionID, socket: socket)
                threads.leave()
            }
        }
    }

    /// The connection's byte stream: the socket itself, or TLS over it after a successful handshake (`nil` when
    /// the handshake fails; the client has then been told why by a TLS alert).
    private func connectionStream(on socket: SocketDescriptor) -> ConnectionStream? {
        #if canImport(COpenSSL)
        if let tlsContext {
            let stream = ConnectionStream.accepting(socket, context: tlsContext, timeout: configuration.readTimeout)
            if stream == nil {
                socket.shutdownWrite()
                HTTPConnection.discardIncoming(on: socket, isStopping: { isStopped })
            } else if stream?.isSessionResumed == true {
                state.withLock { $0.stats.resumedTLSSessions += 1 }
            }
            return stream
        }
        #endif
        return ConnectionStream(socket: socket)
    }

    private func connectionClosed(id: Int, socket: SocketDescriptor) {
        state.withLock { state in
            state.openSockets[id] = nil
            state.stats.openConnections -= 1
        }
        socket.close()
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

    /// The response for `request`: the newest matching custom route, else a built-in route, else `404`.
    func response(for request: TestRequest) -> TestResponse {
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
            return route.handler(request)
        }
        if !pathMatchedMethods.isEmpty {
            var response = TestResponse.text("method not allowed: \(request.method)", status: 405)
            response.headers.append(("Allow", pathMatchedMethods.joined(separator: ", ")))
            return response
        }
        return BuiltInRoutes(core: self).response(for: request)
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

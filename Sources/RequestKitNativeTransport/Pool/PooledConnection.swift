import Foundation
import RequestKitModel

/// A connection of the pool: HTTP/1.1, one request at a time, or HTTP/2, many at once. An enum rather than a
/// protocol: the pool's fast path (``HTTP1Connection/runInline(_:polls:)``) is HTTP/1.1's alone, and a switch costs
/// less than a dynamic call on every request.
///
/// ```swift
/// pool.release(.http1(connection), isReusable: true)
/// ```
enum PooledConnection: Sendable {
    /// Still opening: its connector resolves, connects and runs the handshakes for the job that asked for it.
    case connecting(Connector, id: ConnectionPool.Machine.ConnectionID)
    case http1(HTTP1Connection)
    #if canImport(CNghttp2)
    case http2(HTTP2Connection)
    #endif

    /// The connection's identifier in the pool's machine.
    var id: ConnectionPool.Machine.ConnectionID {
        switch self {
        case .connecting(_, let id): id
        case .http1(let connection): connection.id
        #if canImport(CNghttp2)
        case .http2(let connection): connection.id
        #endif
        }
    }

    /// The host and port it goes to.
    var key: ConnectionKey {
        switch self {
        case .connecting(let connector, _): connector.key
        case .http1(let connection): connection.key
        #if canImport(CNghttp2)
        case .http2(let connection): connection.key
        #endif
        }
    }

    /// The loop that drives it.
    var loop: EventLoop {
        switch self {
        case .connecting(let connector, _): connector.loop
        case .http1(let connection): connection.loop
        #if canImport(CNghttp2)
        case .http2(let connection): connection.loop
        #endif
        }
    }

    /// Starts `job` on it from the loop's own thread, at once: the caller is a task that runs on the loop (its
    /// executor preferred), outside every connection's step.
    func runOnLoop(_ job: RequestJob) {
        switch self {
        case .connecting: run(job)
        case .http1(let connection): connection.run(job)
        #if canImport(CNghttp2)
        case .http2(let connection): connection.run(job)
        #endif
        }
    }

    /// Starts `job` on it, on its loop.
    func run(_ job: RequestJob) {
        switch self {
        case .connecting:
            // The pool runs a job only on an open connection with room; an opening one has its own job.
            job.finish(
                .failed(
                    RequestError.transport(URLError(.unknown), detail: "the connection was still opening"),
                    wasReused: false))
        case .http1(let connection): connection.loop.execute { connection.run(job) }
        #if canImport(CNghttp2)
        case .http2(let connection): connection.loop.execute { connection.run(job) }
        #endif
        }
    }

    /// Cancels `job` if it still runs on it, on its loop.
    func cancel(_ job: RequestJob) {
        switch self {
        case .connecting(let connector, _): connector.cancel()
        case .http1(let connection): connection.loop.execute { connection.cancel(job) }
        #if canImport(CNghttp2)
        case .http2(let connection): connection.loop.execute { connection.cancel(job) }
        #endif
        }
    }

    /// Closes it once the pool has let it go, on its loop.
    func closeIdle() {
        switch self {
        case .connecting(let connector, _): connector.cancel()
        case .http1(let connection): connection.loop.execute { connection.closeIdle() }
        #if canImport(CNghttp2)
        case .http2(let connection): connection.loop.execute { connection.closeIdle() }
        #endif
        }
    }
}

#if ServiceLifecycle
import Foundation
import RequestKit
import ServiceLifecycle

/// A ``Client`` as a swift-service-lifecycle `Service`: calls made through ``perform(_:)`` run until the service
/// group shuts down gracefully; then new calls fail at once with a ``RequestError`` of kind
/// ``RequestError/Kind/shuttingDown``, and the calls in flight have until ``shutdownDeadline`` to finish, after which
/// they are cancelled. `run()` returns when the last one has ended.
///
/// ```swift
/// let orders = ClientService(client: Client(baseURL: ordersURL), shutdownDeadline: .seconds(10))
/// let group = ServiceGroup(services: [orders, server], gracefulShutdownSignals: [.sigterm], logger: logger)
/// // in a request handler:
/// let order = try await orders.perform { client in try await client.data(Request { Path("orders", id) }) }
/// ```
///
/// Cancelling the task that runs the service (rather than shutting the group down gracefully) cancels the calls in
/// flight at once.
public final class ClientService: Service, @unchecked Sendable {
    // Safe: `state` is only read and written holding `lock`.

    /// The client every call uses.
    ///
    /// ```swift
    /// let baseURL = service.client.baseURL
    /// ```
    public let client: Client

    /// How long the calls in flight when a graceful shutdown begins may take to finish before they are cancelled,
    /// on the client's clock (``Client/Configuration/clock``).
    ///
    /// ```swift
    /// let service = ClientService(client: client, shutdownDeadline: .seconds(5))
    /// ```
    public let shutdownDeadline: Duration

    private let lock = NSLock()
    private var state = CallRegistry()

    /// Creates a service around `client`.
    ///
    /// ```swift
    /// let service = ClientService(client: Client(baseURL: apiURL))
    /// ```
    /// - Parameters:
    ///   - client: The client every call uses.
    ///   - shutdownDeadline: How long calls in flight may take once a graceful shutdown begins; 30 seconds by
    ///     default.
    public init(client: Client, shutdownDeadline: Duration = .seconds(30)) {
        self.client = client
        self.shutdownDeadline = shutdownDeadline
    }

    /// Whether a shutdown has begun, so new calls are refused.
    ///
    /// ```swift
    /// let ready = !service.isShuttingDown  // for a readiness probe
    /// ```
    public var isShuttingDown: Bool { lock.withLock { state.isClosed } }

    /// Runs `operation` with the client as a call of this service, which a graceful shutdown waits for (until
    /// ``shutdownDeadline``, then cancels it).
    ///
    /// ```swift
    /// let user = try await service.perform { client in
    ///     try await client.decode(Request { Path("users", 1) }, as: User.self)
    /// }
    /// ```
    /// - Parameter operation: What to do with the client; it runs in a task of its own, cancelled when the calling
    ///   task is cancelled or the shutdown deadline passes.
    /// - Returns: What `operation` returns.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/shuttingDown`` when a shutdown has begun (nothing is
    ///   sent), or what `operation` throws.
    public func perform<Value: Sendable>(
        _ operation: @escaping @Sendable (Client) async throws -> Value
    ) async throws -> Value {
        let id = try lock.withLock { () throws(RequestError) -> UInt64 in
            guard let id = state.begin() else { throw RequestError.shuttingDown() }
            return id
        }
        let client = client
        let call = Task { try await operation(client) }
        let isCancelled = lock.withLock { !state.attach(id, cancel: { call.cancel() }) }
        if isCancelled { call.cancel() }
        defer { end(id) }
        return try await withTaskCancellationHandler {
            try await call.value
        } onCancel: {
            call.cancel()
        }
    }

    /// Runs until the service group shuts down gracefully or this task is cancelled; then refuses new calls, lets
    /// the calls in flight finish until ``shutdownDeadline`` (none on cancellation), cancels those left and returns
    /// once every call has ended.
    ///
    /// ```swift
    /// try await ServiceGroup(services: [service], logger: logger).run()
    /// ```
    public func run() async throws {
        let isGraceful = (try? await gracefulShutdown()) != nil
        let drained = lock.withLock { state.close() }
        if isGraceful {
            await withTaskGroup(of: Void.self) { group in
                // Cancels the calls left at the deadline, or at once if this task is cancelled meanwhile; once they
                // have all ended it is cancelled itself and finds none.
                group.addTask { [client, shutdownDeadline] in
                    try? await client.configuration.clock.sleep(for: shutdownDeadline)
                    self.cancelCalls()
                }
                await drained.wait()
                group.cancelAll()
            }
        } else {
            cancelCalls()
            await drained.wait()
        }
    }

    private func end(_ id: UInt64) {
        lock.withLock { state.end(id) }?.signal()
    }

    private func cancelCalls() {
        for cancel in lock.withLock({ state.cancelAll() }) { cancel() }
    }
}

extension RequestError.Kind {
    /// A ``ClientService`` refused the call: its service group is shutting down.
    ///
    /// ```swift
    /// if error.kind == .shuttingDown { return .serviceUnavailable }
    /// ```
    public static let shuttingDown = Self("shuttingDown")
}

extension RequestError {
    /// A call refused because its ``ClientService`` is shutting down.
    static func shuttingDown() -> RequestError {
        RequestError(
            kind: .shuttingDown,
            detail: "the client service is shutting down: it takes no new calls while those in flight finish")
    }
}
#endif

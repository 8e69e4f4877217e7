import RequestKitDSL
import RequestKitModel

/// Requests sent together, at most a few at a time, with one result per request in declaration order.
///
/// Each result is a *validated* response: a request whose status its `Validate` does not accept (a 404, by
/// default) is a failure in its slot, like `validatedResponse()` would throw, whose description names the slot
/// (`… for slot [2] of the group, GET http://…/todos/3`). One failure loses nothing else
/// unless the group fails fast, in which case the first failure cancels every request still running, starts
/// no new ones, and is thrown.
///
/// The group never runs more than ``maxConcurrent`` requests, and never creates more child tasks than that,
/// however many requests it holds. Cancelling the task awaiting ``send()`` cancels every outstanding request.
///
/// ```swift
/// let group = RequestGroup(maxConcurrent: 4) {
///     Request { Url("http://127.0.0.1:8080/me") }
///     for id in 1...20 { Request { Url("http://127.0.0.1:8080/todos/\(id)") } }
/// }
/// for (index, result) in try await group.send().enumerated() {
///     print(index, (try? result.get().statusCode) ?? 0)
/// }
/// ```
public struct RequestGroup: Sendable {
    /// The number of requests a group runs at once unless told otherwise: 4, fewer than the connections the
    /// transports open to one host (``URLSessionTransport/defaultMaxConnectionsPerHost``, 6; 16 natively), so that a
    /// group of slow requests never holds every connection to a host and other requests to it still start.
    ///
    /// ```swift
    /// let wider = RequestGroup(maxConcurrent: RequestGroup.defaultMaxConcurrent * 2) {
    ///     for id in 1...20 { Request { Url("http://127.0.0.1:8080/todos/\(id)") } }
    /// }
    /// ```
    public static let defaultMaxConcurrent = 4

    /// The requests, in declaration order.
    public let requests: [any RequestRepresentable]
    /// The most requests in flight at once; at least 1.
    public let maxConcurrent: Int
    /// Whether the first failure cancels the rest and is thrown.
    public let isFailFast: Bool
    /// Handlers for ``call(on:)``.
    var callbacks = GroupCallbacks()

    /// Creates a group from a block of requests.
    ///
    /// ```swift
    /// let group = RequestGroup(maxConcurrent: 2, failFast: true) {
    ///     Request { Url("http://127.0.0.1:8080/a") }
    ///     Request { Url("http://127.0.0.1:8080/b") }
    /// }
    /// ```
    /// - Parameters:
    ///   - maxConcurrent: The most requests in flight at once; values below 1 count as 1.
    ///   - failFast: Whether the first failure cancels the rest and is thrown.
    ///   - content: The requests.
    public init(
        maxConcurrent: Int = RequestGroup.defaultMaxConcurrent, failFast: Bool = false,
        @RequestGroupBuilder _ content: () -> [any RequestRepresentable]
    ) {
        self.init(content(), maxConcurrent: maxConcurrent, failFast: failFast)
    }

    /// Creates a group from requests built elsewhere.
    ///
    /// ```swift
    /// let group = RequestGroup(ids.map { id in Request { Url("http://127.0.0.1:8080/todos/\(id)") } })
    /// ```
    /// - Parameters:
    ///   - requests: The requests, in the order their results are returned.
    ///   - maxConcurrent: The most requests in flight at once; values below 1 count as 1.
    ///   - failFast: Whether the first failure cancels the rest and is thrown.
    public init(
        _ requests: [any RequestRepresentable], maxConcurrent: Int = RequestGroup.defaultMaxConcurrent,
        failFast: Bool = false
    ) {
        self.requests = requests
        self.maxConcurrent = max(1, maxConcurrent)
        self.isFailFast = failFast
    }

    /// Sends every request and returns one validated result per request, in declaration order.
    ///
    /// ```swift
    /// let results = try await group.send()
    /// let failures = results.filter { (try? $0.get()) == nil }.count
    /// ```
    /// - Returns: A result for each request; a failure is any ``RequestError`` that request met.
    /// - Throws: ``RequestError``: the first failure when the group fails fast, or a `.cancelled` error when
    ///   the awaiting task was cancelled.
    public func send() async throws(RequestError) -> [Result<Response, RequestError>] {
        try await send(failFast: isFailFast)
    }

    /// Sends every request, choosing here whether the first failure cancels the rest.
    ///
    /// ```swift
    /// let results = try await group.send(failFast: true)
    /// ```
    /// - Parameter failFast: Whether the first failure cancels the rest and is thrown.
    /// - Returns: A validated result for each request, in declaration order.
    /// - Throws: ``RequestError``: the first failure when failing fast, or `.cancelled` when the awaiting task
    ///   was cancelled.
    public func send(failFast: Bool) async throws(RequestError) -> [Result<Response, RequestError>] {
        var slots = [Result<Response, RequestError>?](repeating: nil, count: requests.count)
        let failure = await forEachResult(failFast: failFast) { index, result in slots[index] = result }
        if let failure { throw failure }
        if Task.isCancelled { throw RequestError.cancelled() }
        return slots.map { $0 ?? .failure(RequestError.cancelled()) }
    }

    /// Sends the requests, at most ``maxConcurrent`` at a time, calling `body` with each result as it arrives.
    ///
    /// Stops starting requests when the task is cancelled or, failing fast, at the first failure, which it
    /// returns after cancelling the requests still running.
    func forEachResult(
        failFast: Bool, _ body: (Int, Result<Response, RequestError>) async -> Void
    ) async -> RequestError? {
        let requests = self.requests
        return await withTaskGroup(of: (Int, Result<Response, RequestError>).self) { group in
            var next = 0
            func start(_ index: Int) {
                group.addTask {
                    do throws(RequestError) {
                        return (index, .success(try await requests[index].validatedResponse()))
                    } catch {
                        return (index, .failure(error.describingSlot(index, of: requests[index])))
                    }
                }
            }
            while next < min(maxConcurrent, requests.count) {
                start(next)
                next += 1
            }
            while let (index, result) = await group.next() {
                await body(index, result)
                if failFast, case .failure(let error) = result {
                    group.cancelAll()
                    return error
                }
                if next < requests.count, !Task.isCancelled {
                    start(next)
                    next += 1
                }
            }
            return nil
        }
    }
}

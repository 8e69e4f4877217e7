import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every running task of one ``URLSessionTransport``, keyed by task identifier: what the session's delegate
/// reports goes to the caller of `send` (a whole response) or `stream` (the head, then the body as it arrives).
///
/// **Backpressure.** When a stream's buffer is full, Apple platforms suspend the task (URLSession stops reading).
/// FoundationNetworking cannot pause a transfer, so there the bytes that keep arriving go to a ``BodySpool``
/// file and are fed to the consumer as it drains; the end of the transfer waits until the spool is empty.
///
/// **Locking.** One lock guards the table and every transfer in it. Whoever removes a transfer from the table
/// owns it and finishes it, after releasing the lock, so a continuation is resumed exactly once. The lock is
/// taken only by the delegate's callbacks, by the caller registering its task and by work on ``queue``; never by
/// a cancellation or termination handler, which may run while the Swift runtime holds a lock of its own: those
/// hand their work to ``queue``.
///
/// **Cancelling a task** waits, in FoundationNetworking, for the work queue that every session's transfers share,
/// and a server that keeps sending (an endless body, a bomb) can keep that queue busy for seconds. So a task is
/// cancelled on ``cancellations`` (``stop(_:)``), never on the delegate's queue or on ``queue``: the transfer is
/// finished at once, the bytes that still arrive find no transfer and are dropped, and no other transfer waits.
final class TransferRegistry: @unchecked Sendable {
    // Safe: `transfers`, and every transfer it holds, are read and written only while holding `lock`.
    private let lock = NSLock()
    private var transfers: [Int: RegisteredTransfer] = [:]
    private let watchdog: IdleWatchdog
    /// Runs the idle timer, cancellations and the draining of spools, off the callers' threads.
    let queue = DispatchQueue(label: "RequestKit.URLSessionTransport.registry")
    /// Runs `URLSessionTask.cancel()`, which may wait (see the type's discussion).
    private let cancellations = DispatchQueue(label: "RequestKit.URLSessionTransport.cancellations")

    init() {
        watchdog = IdleWatchdog(queue: queue)
        watchdog.start { [weak self] in self?.expireIdleTransfers() }
    }

    /// Adds a task that is about to be resumed, and makes sure its idle timeout is watched.
    func register(
        _ task: URLSessionTask, idleTimeout: TimeInterval, bodyFailure: BodyReadFailure, limits: ResponseLimits,
        destination: RegisteredTransfer.Destination
    ) {
        let transfer = RegisteredTransfer(
            task: task, idleTimeout: idleTimeout, bodyFailure: bodyFailure, limits: limits, destination: destination)
        lock.withLock { transfers[task.taskIdentifier] = transfer }
        watchdog.watch(timeout: idleTimeout)
    }

    /// Restarts a transfer's idle clock once its task has been resumed: creating and resuming a task may wait
    /// behind other transfers (see ``TaskStart``), and that wait is not the server's silence.
    func resumed(_ identifier: Int) {
        lock.withLock { transfers[identifier]?.lastActivity = .now() }
    }

    /// Cancels a transfer soon, on ``queue``: safe to call from a cancellation or termination handler.
    func cancelSoon(_ identifier: Int) {
        queue.async { self.cancel(identifier) }
    }

    /// Ends a transfer whose caller or consumer has gone: fails it with `.cancelled` and cancels its task, which
    /// closes the connection.
    private func cancel(_ identifier: Int) {
        guard let transfer = lock.withLock({ transfers.removeValue(forKey: identifier) }) else { return }
        transfer.finish(with: RequestError.cancelled(underlyingError: CancellationError()))
        stop(transfer.task)
    }

    /// Cancels `task`, which closes its connection, on ``cancellations``.
    func stop(_ task: URLSessionTask) {
        cancellations.async { task.cancel() }
    }

    /// Fails with `.timedOut` (and cancels) every transfer that received nothing for its whole idle timeout while
    /// reading: time paused for backpressure does not count. Returns the seconds until the next check is due, or
    /// nil when no transfer is watched.
    private func expireIdleTransfers() -> TimeInterval? {
        let (expired, next) = lock.withLock { () -> ([RegisteredTransfer], TimeInterval?) in
            let now = DispatchTime.now()
            var expired: [(Int, RegisteredTransfer)] = []
            var next: TimeInterval?
            var shortest: TimeInterval?
            for (identifier, transfer) in transfers where IdleWatchdog.isWatched(transfer.idleTimeout) {
                let timeout = transfer.idleTimeout
                shortest = min(shortest ?? timeout, timeout)
                if transfer.isPaused {
                    transfer.lastActivity = now
                    next = min(next ?? timeout, timeout)
                    continue
                }
                let remaining = IdleWatchdog.remaining(of: timeout, since: transfer.lastActivity, now: now)
                if remaining <= 0 {
                    expired.append((identifier, transfer))
                } else {
                    next = min(next ?? remaining, remaining)
                }
            }
            for (identifier, _) in expired { transfers.removeValue(forKey: identifier) }
            guard let next, let shortest else { return (expired.map(\.1), nil) }
            return (expired.map(\.1), max(next, IdleWatchdog.spacing(forShortest: shortest)))
        }
        for transfer in expired {
            transfer.finish(with: IdleWatchdog.timeoutError(transfer.idleTimeout))
            stop(transfer.task)
        }
        return next
    }

    /// The response head arrived: kept for `send`, handed to the caller at once for `stream`.
    func received(_ response: URLResponse, for task: URLSessionTask) {
        let ready = lock.withLock {
            () -> (CheckedContinuation<StreamingResponse, any Error>, Response, ResponseBodyStream)? in
            guard let transfer = transfers[task.taskIdentifier] else { return nil }
            transfer.lastActivity = .now()
            transfer.headReceived = transfer.headReceived ?? .now
            transfer.response = response as? HTTPURLResponse
            guard let http = transfer.response,
                case .stream(.some(let head), let body, let stream) = transfer.destination
            else { return nil }
            transfer.destination = .stream(head: nil, body: body, stream: stream)
            return (head, transfer.metered(FoundationMapping.response(http), end: nil), stream)
        }
        if let (head, response, stream) = ready {
            head.resume(returning: StreamingResponse(head: response, body: stream))
        }
    }

    /// Collects body bytes for `send`; for `stream`, hands them to the consumer, or to the spool while the
    /// consumer's buffer is full. The lock is held across the yield and the pause so that a resume from the
    /// consumer cannot slip in between and be lost.
    ///
    /// Stops the transfer (cancelling its task, which closes the connection) as soon as the body passes its
    /// ``ReceivedBodyBound`` or, on Linux, the spool would pass ``ResponseLimits/maxSpoolBytes``: it fails with
    /// ``RequestError/Kind/responseTooLarge``, keeping the response head.
    func received(_ data: Data, for task: URLSessionTask) {
        let failed = lock.withLock { () -> (RegisteredTransfer, RequestError)? in
            guard let transfer = transfers[task.taskIdentifier] else { return nil }
            transfer.lastActivity = .now()
            if let error = transfer.count(data.count) {
                transfers.removeValue(forKey: task.taskIdentifier)
                return (transfer, error)
            }
            guard case .stream(_, let body, _) = transfer.destination else {
                transfer.collected.append(data)
                return nil
            }
            #if canImport(FoundationNetworking)
            if transfer.isPaused || transfer.hasSpooledBytes {
                let spool = transfer.spool ?? BodySpool()
                transfer.spool = spool
                let limit = transfer.limits.maxSpoolBytes
                guard data.count <= limit - spool.waitingBytes else {
                    transfers.removeValue(forKey: task.taskIdentifier)
                    let head = transfer.response.map { FoundationMapping.response($0) }
                    return (transfer, RequestError.spoolLimitExceeded(limit, response: head))
                }
                do {
                    try spool.append(data)
                } catch {
                    transfers.removeValue(forKey: task.taskIdentifier)
                    return (
                        transfer, RequestError.transport(error, detail: "spooling the response body to disk failed")
                    )
                }
                return nil
            }
            #endif
            if !body.yield(data), !transfer.isPaused {
                transfer.isPaused = true
                #if !canImport(FoundationNetworking)
                task.suspend()
                #endif
            }
            return nil
        }
        if let (transfer, error) = failed {
            transfer.finish(with: error)
            stop(task)
        }
    }

    /// Asks for ``resumeReading(_:)`` on ``queue``: the stream's demand handler.
    func resumeReadingSoon(_ identifier: Int) {
        queue.async { self.resumeReading(identifier) }
    }

    /// The consumer drained its buffer: feed it from the spool, or read from the network again.
    private func resumeReading(_ identifier: Int) {
        let ended = lock.withLock { () -> (RegisteredTransfer, RequestError?)? in
            guard let transfer = transfers[identifier], transfer.isPaused,
                case .stream(_, let body, _) = transfer.destination
            else { return nil }
            transfer.isPaused = false
            transfer.lastActivity = .now()
            if let spool = transfer.spool {
                do {
                    while !transfer.isPaused, let chunk = try spool.read(upTo: 256 * 1024) {
                        if !body.yield(chunk) { transfer.isPaused = true }
                    }
                } catch {
                    transfers.removeValue(forKey: identifier)
                    return (transfer, RequestError.transport(error, detail: "reading the spooled response body failed"))
                }
                if spool.isEmpty, let end = transfer.pendingEnd {
                    transfers.removeValue(forKey: identifier)
                    return (transfer, end)
                }
            }
            #if !canImport(FoundationNetworking)
            if !transfer.isPaused { transfer.task.resume() }
            #endif
            return nil
        }
        if let (transfer, error) = ended {
            transfer.finish(with: error)
            if error != nil { stop(transfer.task) }
        }
    }

    /// Marks a transfer whose response was an authentication challenge, keeping that response.
    func challenged(_ task: URLSessionTask, failureResponse: URLResponse?) {
        lock.withLock {
            guard let transfer = transfers[task.taskIdentifier] else { return }
            transfer.isChallenged = true
            if transfer.response == nil { transfer.response = failureResponse as? HTTPURLResponse }
        }
    }

    /// The task is over: finishes the transfer, or, while spooled bytes still wait for the consumer, keeps its
    /// end for when they have been read.
    func completed(_ task: URLSessionTask, error: (any Error)?) {
        guard let transfer = lock.withLock({ transfers[task.taskIdentifier] }) else { return }
        let failure = error.map {
            transfer.bodyFailure.recorded
                ?? FoundationMapping.requestError(
                    for: $0, idleTimeout: transfer.idleTimeout, url: task.currentRequest?.url)
        }
        let end = lock.withLock { () -> RequestError?? in
            guard transfers[task.taskIdentifier] === transfer else { return .none }
            let end = transfer.isChallenged && transfer.response != nil ? nil : failure
            if transfer.hasSpooledBytes, case .stream(.none, let body, _) = transfer.destination, !body.isTerminated {
                transfer.pendingEnd = .some(end)
                return .none
            }
            transfers.removeValue(forKey: task.taskIdentifier)
            return .some(end)
        }
        guard case .some(let end) = end else { return }
        if end == nil, transfer.response == nil { transfer.response = task.response as? HTTPURLResponse }
        transfer.finish(with: end)
    }
}

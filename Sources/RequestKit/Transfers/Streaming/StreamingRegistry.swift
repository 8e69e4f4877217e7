import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of every streaming transfer, keyed by task identifier: the pending head, the body continuation,
/// whether the consumer's buffer is full, and the idle watchdog's clock.
///
/// When the buffer is full, Apple platforms suspend the task (URLSession stops reading). FoundationNetworking
/// cannot pause a transfer, so there the bytes that keep arriving go to a ``BodySpool`` file and are fed to the
/// consumer as it drains; the end of the transfer waits until the spool is empty.
final class StreamingRegistry: @unchecked Sendable {
    // Safe: every access to `transfers` and `watchdog` holds `lock`.
    private let lock = NSLock()
    private var transfers: [Int: Transfer] = [:]
    private lazy var watchdog = IdleWatchdog { [weak self] in self?.expireIdleTransfers() }

    private struct Transfer {
        let task: URLSessionTask
        var head: CheckedContinuation<StreamingResponse, any Error>?
        let stream: ResponseBodyStream
        let body: ResponseBodyStream.Continuation
        let idleTimeout: TimeInterval
        let bodyFailure: BodyReadFailure
        var lastActivity = DispatchTime.now()
        var isPaused = false
        var isChallenged = false
        var response: HTTPURLResponse?
        let limits: ResponseLimits
        var limiter: ResponseBodyLimiter
        let spool: BodySpool
        /// The transfer's end, held back while spooled bytes wait: the error, or nil for success.
        var pendingEnd: RequestError??
    }

    func register(
        _ task: URLSessionTask, idleTimeout: TimeInterval, limits: ResponseLimits,
        head: CheckedContinuation<StreamingResponse, any Error>, stream: ResponseBodyStream,
        body: ResponseBodyStream.Continuation, bodyFailure: BodyReadFailure
    ) {
        let watchdog = lock.withLock {
            transfers[task.taskIdentifier] = Transfer(
                task: task, head: head, stream: stream, body: body, idleTimeout: idleTimeout, bodyFailure: bodyFailure,
                limits: limits, limiter: ResponseBodyLimiter(limits, isBuffered: false),
                spool: BodySpool(maxBytes: limits.maxSpoolBytes))
            return self.watchdog
        }
        watchdog.watch(timeout: idleTimeout)
    }

    /// Fails with `.timedOut` every transfer that received no bytes for its whole idle timeout while it was
    /// reading (time paused for backpressure does not count); returns the seconds until the next check is due,
    /// or nil when no transfer is watched.
    private func expireIdleTransfers() -> TimeInterval? {
        var expired: [Transfer] = []
        let next = lock.withLock { () -> TimeInterval? in
            var next: TimeInterval?
            for (identifier, transfer) in transfers where IdleWatchdog.isWatched(transfer.idleTimeout) {
                if transfer.isPaused {
                    transfers[identifier]?.lastActivity = .now()
                    next = IdleWatchdog.earlier(next, transfer.idleTimeout)
                    continue
                }
                let remaining = IdleWatchdog.remaining(of: transfer.idleTimeout, since: transfer.lastActivity)
                if remaining <= 0 {
                    transfers.removeValue(forKey: identifier)
                    expired.append(transfer)
                } else {
                    next = IdleWatchdog.earlier(next, remaining)
                }
            }
            return next
        }
        for transfer in expired {
            transfer.spool.close()
            let error = IdleWatchdog.timeoutError(transfer.idleTimeout)
            if let head = transfer.head {
                head.resume(throwing: error)
            } else {
                transfer.body.finish(throwing: error)
            }
            transfer.task.cancel()
        }
        return next
    }

    /// Hands the head to the caller; a head with a malformed `Content-Length` fails the transfer instead.
    func received(_ response: URLResponse, for task: URLSessionTask) {
        if let http = response as? HTTPURLResponse, let error = FoundationMapping.framingError(of: http) {
            guard let transfer = lock.withLock({ transfers.removeValue(forKey: task.taskIdentifier) }) else { return }
            transfer.spool.close()
            if let head = transfer.head {
                head.resume(throwing: error)
            } else {
                transfer.body.finish(throwing: error)
            }
            task.cancel()
            return
        }
        let (head, streaming) = lock.withLock {
            () -> (CheckedContinuation<StreamingResponse, any Error>?, StreamingResponse?) in
            guard var transfer = transfers[task.taskIdentifier], let http = response as? HTTPURLResponse else {
                return (nil, nil)
            }
            transfer.lastActivity = .now()
            transfer.response = http
            transfer.limiter = ResponseBodyLimiter(
                transfer.limits, isBuffered: false, decodedFrom: FoundationMapping.headers(of: http))
            let head = transfer.head
            transfer.head = nil
            transfers[task.taskIdentifier] = transfer
            return (head, StreamingResponse(head: FoundationMapping.response(http), body: transfer.stream))
        }
        if let head, let streaming { head.resume(returning: streaming) }
    }

    /// Hands data to the consumer, or to the spool while the consumer's buffer is full. The lock is held across
    /// the yield and the pause so a resume from the consumer cannot slip in between and be lost. A body past the
    /// response limits, or a spool past its bound, fails the stream and cancels the task.
    func received(_ data: Data, for task: URLSessionTask) {
        let failed = lock.withLock { () -> (Transfer, RequestError)? in
            guard var transfer = transfers[task.taskIdentifier] else { return nil }
            transfer.lastActivity = .now()
            do throws(RequestError) {
                try transfer.limiter.add(data.count)
            } catch {
                transfers.removeValue(forKey: task.taskIdentifier)
                return (transfer, error)
            }
            defer { transfers[task.taskIdentifier] = transfer }
            #if canImport(FoundationNetworking)
            if transfer.isPaused || !transfer.spool.isEmpty {
                do {
                    try transfer.spool.append(data)
                } catch let error as RequestError {
                    transfers.removeValue(forKey: task.taskIdentifier)
                    return (transfer, error)
                } catch {
                    transfers.removeValue(forKey: task.taskIdentifier)
                    return (transfer, RequestError.transport(error, detail: "spooling the body to disk failed"))
                }
                return nil
            }
            #endif
            if !transfer.body.yield(data), !transfer.isPaused {
                transfer.isPaused = true
                #if !canImport(FoundationNetworking)
                task.suspend()
                #endif
            }
            return nil
        }
        if let (transfer, error) = failed {
            transfer.spool.close()
            if let head = transfer.head {
                head.resume(throwing: error)
            } else {
                transfer.body.finish(throwing: error)
            }
            task.cancel()
        }
    }

    /// The consumer drained its buffer: feed it from the spool, or read from the network again.
    func resumeReading(_ task: URLSessionTask) {
        let ended = lock.withLock { () -> (Transfer, RequestError?)? in
            guard var transfer = transfers[task.taskIdentifier], transfer.isPaused else { return nil }
            transfer.isPaused = false
            transfer.lastActivity = .now()
            do {
                while !transfer.isPaused, let chunk = try transfer.spool.read(upTo: 256 * 1024) {
                    if !transfer.body.yield(chunk) { transfer.isPaused = true }
                }
            } catch {
                transfers.removeValue(forKey: task.taskIdentifier)
                return (transfer, RequestError.transport(error, detail: "reading the spooled body failed"))
            }
            if transfer.spool.isEmpty, let end = transfer.pendingEnd {
                transfers.removeValue(forKey: task.taskIdentifier)
                return (transfer, end)
            }
            transfers[task.taskIdentifier] = transfer
            #if !canImport(FoundationNetworking)
            if !transfer.isPaused { task.resume() }
            #endif
            return nil
        }
        if let (transfer, error) = ended {
            transfer.spool.close()
            transfer.body.finish(throwing: error)
        }
    }

    func challenged(_ task: URLSessionTask, failureResponse: URLResponse?) {
        lock.withLock {
            transfers[task.taskIdentifier]?.isChallenged = true
            if transfers[task.taskIdentifier]?.response == nil {
                transfers[task.taskIdentifier]?.response = failureResponse as? HTTPURLResponse
            }
        }
    }

    func completed(_ task: URLSessionTask, error: (any Error)?) {
        let transfer = lock.withLock { () -> Transfer? in
            guard var transfer = transfers[task.taskIdentifier] else { return nil }
            if transfer.head == nil, !transfer.spool.isEmpty, !transfer.body.isTerminated {
                let isChallengeEnd = transfer.isChallenged && transfer.response != nil
                transfer.pendingEnd = .some(
                    isChallengeEnd
                        ? nil
                        : error.map {
                            transfer.bodyFailure.recorded
                                ?? FoundationMapping.requestError(
                                    for: $0, idleTimeout: transfer.idleTimeout, url: task.currentRequest?.url)
                        })
                transfers[task.taskIdentifier] = transfer
                return nil
            }
            return transfers.removeValue(forKey: task.taskIdentifier)
        }
        guard let transfer else { return }
        transfer.spool.close()
        let error: (any Error)? = error.map { transfer.bodyFailure.recorded ?? $0 }
        let isChallengeEnd = transfer.isChallenged && transfer.response != nil
        if let head = transfer.head {
            if let error, !isChallengeEnd {
                head.resume(
                    throwing: FoundationMapping.requestError(
                        for: error, idleTimeout: transfer.idleTimeout, url: task.currentRequest?.url))
            } else if let http = transfer.response ?? task.response as? HTTPURLResponse {
                transfer.body.finish()
                head.resume(returning: StreamingResponse(head: FoundationMapping.response(http), body: transfer.stream))
            } else {
                head.resume(throwing: RequestError.transport(URLError(.badServerResponse), detail: "no HTTP response"))
            }
            return
        }
        if let error, !isChallengeEnd {
            transfer.body.finish(
                throwing: FoundationMapping.requestError(
                    for: error, idleTimeout: transfer.idleTimeout, url: task.currentRequest?.url))
        } else {
            transfer.body.finish()
        }
    }
}

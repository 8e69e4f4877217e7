import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of every download task, keyed by task identifier: where the finished file goes, progress, the
/// idle watchdog's clock, and the caller waiting for the head.
final class DownloadRegistry: @unchecked Sendable {
    // Safe: every access to `downloads` and `watchdog` holds `lock`.
    private let lock = NSLock()
    private var downloads: [Int: Download] = [:]
    private lazy var watchdog = IdleWatchdog { [weak self] in self?.expireIdleDownloads() }

    private struct Download {
        let task: URLSessionTask
        let file: URL
        let limits: ResponseLimits
        let idleTimeout: TimeInterval
        let progress: (@Sendable (TransferProgress) -> Void)?
        let bodyFailure: BodyReadFailure
        let continuation: CheckedContinuation<Response, any Error>
        var lastActivity = DispatchTime.now()
        var moveFailure: (any Error)?
        var isMoved = false
        var isChallenged = false
        var response: HTTPURLResponse?
    }

    func register(
        _ task: URLSessionTask, file: URL, idleTimeout: TimeInterval, limits: ResponseLimits,
        progress: (@Sendable (TransferProgress) -> Void)?, bodyFailure: BodyReadFailure,
        continuation: CheckedContinuation<Response, any Error>
    ) {
        let watchdog = lock.withLock {
            downloads[task.taskIdentifier] = Download(
                task: task, file: file, limits: limits, idleTimeout: idleTimeout, progress: progress,
                bodyFailure: bodyFailure, continuation: continuation)
            return self.watchdog
        }
        watchdog.watch(timeout: idleTimeout)
    }

    /// Fails with `.timedOut` (and cancels) every download that received no bytes for its whole idle timeout;
    /// returns the seconds until the next one could expire, or nil when none is watched.
    private func expireIdleDownloads() -> TimeInterval? {
        var expired: [Download] = []
        let next = lock.withLock { () -> TimeInterval? in
            var next: TimeInterval?
            for (identifier, download) in downloads where IdleWatchdog.isWatched(download.idleTimeout) {
                let remaining = IdleWatchdog.remaining(of: download.idleTimeout, since: download.lastActivity)
                if remaining <= 0 {
                    downloads.removeValue(forKey: identifier)
                    expired.append(download)
                } else {
                    next = IdleWatchdog.earlier(next, remaining)
                }
            }
            return next
        }
        for download in expired {
            download.continuation.resume(throwing: IdleWatchdog.timeoutError(download.idleTimeout))
            download.task.cancel()
        }
        return next
    }

    /// Reports progress; a body past ``ResponseLimits/maxStreamedBodyBytes`` or the decompression ratio fails
    /// the download and cancels the task.
    func wrote(_ total: Int64, expected: Int64, for task: URLSessionTask) {
        var failed: (Download, RequestError)?
        let progress = lock.withLock { () -> (@Sendable (TransferProgress) -> Void)? in
            guard var download = downloads[task.taskIdentifier] else { return nil }
            download.lastActivity = .now()
            var limiter = ResponseBodyLimiter(
                download.limits, isBuffered: false,
                decodedFrom: (task.response as? HTTPURLResponse).map(FoundationMapping.headers(of:)))
            do throws(RequestError) {
                try limiter.add(Int(clamping: total))
            } catch {
                downloads.removeValue(forKey: task.taskIdentifier)
                failed = (download, error)
                return nil
            }
            downloads[task.taskIdentifier] = download
            return download.progress
        }
        if let (download, error) = failed {
            let head = (task.response as? HTTPURLResponse).map { FoundationMapping.response($0) }
            download.continuation.resume(throwing: RequestError(kind: error.kind, response: head, detail: error.detail))
            task.cancel()
            return
        }
        progress?(TransferProgress(completedBytes: total, totalBytes: expected >= 0 ? expected : nil))
    }

    /// Moves the finished file into place now: URLSession deletes it when this callback returns.
    func finished(_ task: URLSessionTask, at location: URL) {
        guard let file = lock.withLock({ downloads[task.taskIdentifier]?.file }) else { return }
        var failure: (any Error)?
        do {
            try? FileManager.default.removeItem(at: file)
            try FileManager.default.moveItem(at: location, to: file)
        } catch {
            failure = error
        }
        lock.withLock {
            downloads[task.taskIdentifier]?.isMoved = failure == nil
            downloads[task.taskIdentifier]?.moveFailure = failure
        }
    }

    func challenged(_ task: URLSessionTask, failureResponse: URLResponse?) {
        lock.withLock {
            downloads[task.taskIdentifier]?.isChallenged = true
            downloads[task.taskIdentifier]?.response = failureResponse as? HTTPURLResponse
        }
    }

    func completed(_ task: URLSessionTask, error: (any Error)?) {
        guard let download = lock.withLock({ downloads.removeValue(forKey: task.taskIdentifier) }) else { return }
        let isChallengeEnd = download.isChallenged && download.response != nil
        if let error, !isChallengeEnd {
            let error = download.bodyFailure.recorded ?? error
            download.continuation.resume(
                throwing: FoundationMapping.requestError(
                    for: error, idleTimeout: download.idleTimeout, url: task.currentRequest?.url))
            return
        }
        if let failure = download.moveFailure {
            download.continuation.resume(
                throwing: RequestError.transport(
                    failure, detail: "cannot move the download to \"\(download.file.path)\""))
            return
        }
        guard let http = download.response ?? task.response as? HTTPURLResponse else {
            download.continuation.resume(
                throwing: RequestError.transport(URLError(.badServerResponse), detail: "no HTTP response"))
            return
        }
        if !download.isMoved {
            _ = FileManager.default.createFile(atPath: download.file.path, contents: nil)
        }
        download.continuation.resume(returning: FoundationMapping.response(http))
    }
}

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of every download task, keyed by task identifier: where the finished file goes, progress, the
/// idle watchdog's clock, and the caller waiting for the head.
final class DownloadRegistry: @unchecked Sendable {
    // Safe: every access to `downloads` holds `lock`.
    private let lock = NSLock()
    private var downloads: [Int: Download] = [:]

    private struct Download {
        let file: URL
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
        _ task: URLSessionTask, file: URL, idleTimeout: TimeInterval,
        progress: (@Sendable (TransferProgress) -> Void)?, bodyFailure: BodyReadFailure,
        continuation: CheckedContinuation<Response, any Error>
    ) {
        lock.withLock {
            downloads[task.taskIdentifier] = Download(
                file: file, idleTimeout: idleTimeout, progress: progress, bodyFailure: bodyFailure,
                continuation: continuation)
        }
        IdleWatchdog.watch(timeout: idleTimeout) { [weak self] in self?.expireIfIdle(task) }
    }

    /// Fails the download with `.timedOut` and cancels the task when no bytes arrived for the whole idle timeout;
    /// returns the seconds left to wait otherwise, or nil when the download is over.
    private func expireIfIdle(_ task: URLSessionTask) -> TimeInterval? {
        let outcome: (expired: Download?, remaining: TimeInterval?) = lock.withLock {
            guard let download = downloads[task.taskIdentifier] else { return (nil, nil) }
            let remaining = IdleWatchdog.remaining(of: download.idleTimeout, since: download.lastActivity)
            guard remaining <= 0 else { return (nil, remaining) }
            downloads.removeValue(forKey: task.taskIdentifier)
            return (download, nil)
        }
        if let expired = outcome.expired {
            expired.continuation.resume(throwing: IdleWatchdog.timeoutError(expired.idleTimeout))
            task.cancel()
        }
        return outcome.remaining
    }

    func wrote(_ total: Int64, expected: Int64, for task: URLSessionTask) {
        let progress = lock.withLock { () -> (@Sendable (TransferProgress) -> Void)? in
            downloads[task.taskIdentifier]?.lastActivity = .now()
            return downloads[task.taskIdentifier]?.progress
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

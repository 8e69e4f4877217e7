import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: one long-lived `URLSession` (FoundationNetworking over libcurl on Linux).
///
/// Redirects follow the request's ``RedirectPolicy`` (`Redirects(_:)`, or a client's), following up to 10 by
/// default; a redirect to another origin drops `Authorization`, `Cookie` and `Proxy-Authorization`.
///
/// Every request shares ``shared``'s session and its connection pool; no session is made per call. The
/// session keeps no cache and no cookies of its own, so each request sends exactly what it declares.
///
/// URLSession opens at most ``maxConnectionsPerHost`` connections to one host (six by default, as browsers
/// do); further requests to that host wait for one, however unrelated they are. A ``RequestGroup`` runs four
/// requests at once by default, so slow requests in a group leave room for others; for more parallel
/// requests to one host, raise the limit with ``init(maxConnectionsPerHost:)``.
/// Cancelling the task that awaits a request cancels the transfer and closes its connection.
///
/// ```swift
/// let transport = URLSessionTransport(configuration: .ephemeral)
/// let response = try await Request {
///     Url("http://127.0.0.1:8080/status/204")
///     Using(transport)
/// }.send()
/// ```
public final class URLSessionTransport: Transport {
    /// The transport every request uses unless told otherwise.
    public static let shared = URLSessionTransport()

    /// The underlying session.
    public let session: URLSession
    private let registry: TaskRegistry
    /// The session for ``stream(_:)``, whose bodies go to their consumers instead of being collected.
    let streaming: StreamingSession

    /// Creates a transport with its own session.
    ///
    /// ```swift
    /// let configuration = URLSessionConfiguration.default
    /// configuration.httpMaximumConnectionsPerHost = 4
    /// let transport = URLSessionTransport(configuration: configuration)
    /// ```
    /// - Parameter configuration: The session configuration; by default no cache and no cookie storage.
    public init(configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration()) {
        let registry = TaskRegistry()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "RequestKit.URLSessionTransport"
        self.registry = registry
        self.streaming = StreamingSession(configuration: configuration)
        self.session = URLSession(
            configuration: configuration, delegate: SessionDelegate(registry: registry), delegateQueue: queue)
    }

    deinit {
        session.finishTasksAndInvalidate()
        streaming.invalidate()
    }

    /// The configuration new transports use: no URL cache, no cookie storage, cookies not set automatically,
    /// and ``defaultMaxConnectionsPerHost`` connections per host.
    ///
    /// ```swift
    /// let configuration = URLSessionTransport.defaultConfiguration()
    /// ```
    public static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = defaultMaxConnectionsPerHost
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return configuration
    }

    public func send(_ request: TransferRequest) async throws -> Response {
        var urlRequest = request.urlRequest
        if let body = request.body {
            guard body.isInMemory, request.uploadProgress == nil else {
                let streaming = try await stream(request)
                var response = streaming.head
                response.body = try await streaming.collect()
                return response
            }
            urlRequest.httpBody = body.data
        }
        try Task.checkCancellation()
        let task = session.dataTask(with: urlRequest)
        let idleTimeout = urlRequest.timeoutInterval
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
                registry.register(
                    task, idleTimeout: idleTimeout, originalURL: urlRequest.url,
                    continuation: continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// Routes the session's delegate callbacks to the task that awaits each transfer.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Safe: the only stored property is a `let` to a lock-guarded registry.
    let registry: TaskRegistry

    init(registry: TaskRegistry) {
        self.registry = registry
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        registry.received(response, for: dataTask)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        registry.received(data, for: dataTask)
    }

    /// Returns the redirect as the response: the request pipeline follows redirects, for every transport.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        registry.completed(task, error: error)
    }

    /// Authentication is the request's business (an `Authorization` header), so a 401 reaches the caller as a
    /// response. FoundationNetworking waits forever on a challenge it has no stored credential for, so there the
    /// 401 already received is kept and the task is cancelled to finish the transfer.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        registry.challenged(task, failureResponse: challenge.failureResponse)
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        completionHandler(.performDefaultHandling, nil)
        #endif
    }
}

/// The state of every running transfer, keyed by task identifier.
private final class TaskRegistry: @unchecked Sendable {
    // Safe: every access to `transfers` holds `lock`.
    private let lock = NSLock()
    private var transfers: [Int: Transfer] = [:]

    private struct Transfer {
        let continuation: CheckedContinuation<Response, any Error>
        let idleTimeout: TimeInterval
        var lastActivity = DispatchTime.now()
        let originalURL: URL?
        var redirectCount = 0
        var redirectFailure: RequestError?
        var isChallenged = false
        var response: HTTPURLResponse?
        var body = Data()
    }

    func register(
        _ task: URLSessionTask, idleTimeout: TimeInterval, originalURL: URL?,
        continuation: CheckedContinuation<Response, any Error>
    ) {
        lock.withLock {
            transfers[task.taskIdentifier] = Transfer(
                continuation: continuation, idleTimeout: idleTimeout, originalURL: originalURL)
        }
        IdleWatchdog.watch(timeout: idleTimeout) { [weak self] in self?.expireIfIdle(task) }
    }

    /// Fails the transfer with `.timedOut` and cancels the task when no bytes arrived for the whole idle timeout;
    /// returns the seconds left to wait otherwise, or nil when the transfer is over.
    private func expireIfIdle(_ task: URLSessionTask) -> TimeInterval? {
        let outcome: (expired: Transfer?, remaining: TimeInterval?) = lock.withLock {
            guard let transfer = transfers[task.taskIdentifier] else { return (nil, nil) }
            let remaining = IdleWatchdog.remaining(of: transfer.idleTimeout, since: transfer.lastActivity)
            guard remaining <= 0 else { return (nil, remaining) }
            transfers.removeValue(forKey: task.taskIdentifier)
            return (transfer, nil)
        }
        if let expired = outcome.expired {
            expired.continuation.resume(throwing: IdleWatchdog.timeoutError(expired.idleTimeout))
            task.cancel()
        }
        return outcome.remaining
    }

    func received(_ response: URLResponse, for task: URLSessionTask) {
        lock.withLock {
            transfers[task.taskIdentifier]?.response = response as? HTTPURLResponse
            transfers[task.taskIdentifier]?.lastActivity = .now()
        }
    }

    func received(_ data: Data, for task: URLSessionTask) {
        lock.withLock {
            transfers[task.taskIdentifier]?.body.append(data)
            transfers[task.taskIdentifier]?.lastActivity = .now()
        }
    }

    /// Marks a transfer whose response was an authentication challenge, keeping that response.
    func challenged(_ task: URLSessionTask, failureResponse: URLResponse?) {
        lock.withLock {
            transfers[task.taskIdentifier]?.isChallenged = true
            if transfers[task.taskIdentifier]?.response == nil {
                transfers[task.taskIdentifier]?.response = failureResponse as? HTTPURLResponse
            }
        }
    }

    func completed(_ task: URLSessionTask, error: (any Error)?) {
        guard let transfer = lock.withLock({ transfers.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let failure = transfer.redirectFailure {
            transfer.continuation.resume(throwing: failure)
            return
        }
        if let error, !(transfer.isChallenged && transfer.response != nil) {
            transfer.continuation.resume(
                throwing: FoundationMapping.requestError(
                    for: error, idleTimeout: transfer.idleTimeout, url: task.currentRequest?.url))
            return
        }
        guard let http = transfer.response ?? task.response as? HTTPURLResponse else {
            transfer.continuation.resume(
                throwing: RequestError.transport(URLError(.badServerResponse), detail: "no HTTP response"))
            return
        }
        transfer.continuation.resume(returning: FoundationMapping.response(http, body: transfer.body))
    }
}

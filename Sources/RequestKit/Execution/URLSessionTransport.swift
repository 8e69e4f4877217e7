import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: one long-lived `URLSession` (FoundationNetworking over libcurl on Linux).
///
/// Redirects follow the request's ``RedirectPolicy`` (`Redirects(_:)`, or a client's), following up to 10 by
/// default; a redirect to another origin drops the sensitive headers (``SensitiveData``: `Authorization`,
/// `Cookie`, `Proxy-Authorization`, `X-Api-Key`, `X-Auth-Token` and any the request or client adds).
///
/// Every request shares ``shared``'s session and its connection pool; no session is made per call. The
/// session keeps no cache and no cookies of its own, so each request sends exactly what it declares.
///
/// URLSession opens at most ``maxConnectionsPerHost`` connections to one host (six by default, as browsers
/// do); further requests to that host wait for one, however unrelated they are. A ``RequestGroup`` runs four
/// requests at once by default, so slow requests in a group leave room for others; for more parallel
/// requests to one host, raise the limit with ``init(maxConnectionsPerHost:)``.
/// Cancelling the task that awaits ``send(_:)`` cancels the transfer and closes its connection.
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

    public func send(_ request: URLRequest) async throws -> Response {
        try Task.checkCancellation()
        let task = session.dataTask(with: request)
        let idleTimeout = request.timeoutInterval
        let options = TransferOptions.current
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
                registry.register(
                    task, idleTimeout: idleTimeout, options: options, originalURL: request.url,
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

    /// Applies the request's redirect policy, after dropping credentials on a redirect to another origin.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(registry.redirect(task, response: response, newRequest: request))
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
    // Safe: every access to `transfers` holds `lock`; `watchdog` is a `let` of a lock-guarded class.
    private let lock = NSLock()
    private var transfers: [Int: Transfer] = [:]
    private lazy var watchdog = IdleWatchdog { [weak self] in self?.expireIdleTransfers() }

    private struct Transfer {
        let task: URLSessionTask
        let continuation: CheckedContinuation<Response, any Error>
        let idleTimeout: TimeInterval
        var lastActivity = DispatchTime.now()
        let options: TransferOptions
        let originalURL: URL?
        var redirectCount = 0
        var redirectFailure: RequestError?
        var isChallenged = false
        var response: HTTPURLResponse?
        var limiter: ResponseBodyLimiter
        var body = Data()
    }

    func register(
        _ task: URLSessionTask, idleTimeout: TimeInterval, options: TransferOptions, originalURL: URL?,
        continuation: CheckedContinuation<Response, any Error>
    ) {
        let watchdog = lock.withLock {
            transfers[task.taskIdentifier] = Transfer(
                task: task, continuation: continuation, idleTimeout: idleTimeout, options: options,
                originalURL: originalURL, limiter: ResponseBodyLimiter(options.limits, isBuffered: true))
            return self.watchdog
        }
        watchdog.watch(timeout: idleTimeout)
    }

    /// Fails with `.timedOut` (and cancels) every transfer that received no bytes for its whole idle timeout;
    /// returns the seconds until the next one could expire, or nil when none is watched.
    private func expireIdleTransfers() -> TimeInterval? {
        var expired: [Transfer] = []
        let next = lock.withLock { () -> TimeInterval? in
            var next: TimeInterval?
            for (identifier, transfer) in transfers where IdleWatchdog.isWatched(transfer.idleTimeout) {
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
            transfer.continuation.resume(throwing: IdleWatchdog.timeoutError(transfer.idleTimeout))
            transfer.task.cancel()
        }
        return next
    }

    /// Takes the head; a head with a malformed `Content-Length` fails the transfer and cancels the task.
    func received(_ response: URLResponse, for task: URLSessionTask) {
        if let http = response as? HTTPURLResponse, let error = FoundationMapping.framingError(of: http) {
            guard let transfer = lock.withLock({ transfers.removeValue(forKey: task.taskIdentifier) }) else { return }
            transfer.continuation.resume(throwing: error)
            task.cancel()
            return
        }
        lock.withLock {
            guard var transfer = transfers[task.taskIdentifier] else { return }
            let http = response as? HTTPURLResponse
            transfer.response = http
            transfer.lastActivity = .now()
            transfer.limiter = ResponseBodyLimiter(
                transfer.options.limits, isBuffered: true, decodedFrom: http.map(FoundationMapping.headers(of:)))
            transfers[task.taskIdentifier] = transfer
        }
    }

    /// Collects body bytes; past the response limits, fails the transfer and cancels the task, which closes the
    /// connection.
    func received(_ data: Data, for task: URLSessionTask) {
        let failed = lock.withLock { () -> (Transfer, RequestError)? in
            guard var transfer = transfers[task.taskIdentifier] else { return nil }
            do throws(RequestError) {
                try transfer.limiter.add(data.count)
            } catch {
                transfers.removeValue(forKey: task.taskIdentifier)
                return (transfer, error)
            }
            transfer.lastActivity = .now()
            transfers[task.taskIdentifier] = nil
            transfer.body.append(data)
            transfers[task.taskIdentifier] = transfer
            return nil
        }
        if let (transfer, error) = failed {
            let head = transfer.response.map { FoundationMapping.response($0) }
            transfer.continuation.resume(
                throwing: RequestError(kind: error.kind, response: head, detail: error.detail))
            task.cancel()
        }
    }

    /// The request to send for a redirect, or nil to finish with the redirect response.
    func redirect(_ task: URLSessionTask, response: HTTPURLResponse, newRequest: URLRequest) -> URLRequest? {
        let state: (options: TransferOptions, originalURL: URL?, count: Int)? = lock.withLock {
            guard let transfer = transfers[task.taskIdentifier] else { return nil }
            transfers[task.taskIdentifier]?.redirectCount += 1
            transfers[task.taskIdentifier]?.lastActivity = .now()
            return (transfer.options, transfer.originalURL, transfer.redirectCount + 1)
        }
        guard let state else { return nil }
        let redirect = Response(
            status: HTTPStatus(code: response.statusCode), headers: FoundationMapping.headers(of: response),
            url: response.url)
        var next = newRequest
        let isSameOrigin = RedirectPolicy.isSameOrigin(state.originalURL, newRequest.url)
        if !isSameOrigin {
            for name in state.options.sensitiveData.headerNames { next.setValue(nil, forHTTPHeaderField: name) }
        }
        if let jar = state.options.cookieJar {
            if let url = response.url { jar.store(redirect.cookies, from: url) }
            next.setValue(isSameOrigin ? state.options.explicitCookies : nil, forHTTPHeaderField: "Cookie")
            jar.addCookies(to: &next)
        }
        switch (state.options.redirects ?? .follow).decide(redirect, next, state.count) {
        case .follow(let request):
            lock.withLock {
                transfers[task.taskIdentifier]?.response = nil
                transfers[task.taskIdentifier]?.body = Data()
                transfers[task.taskIdentifier]?.limiter = ResponseBodyLimiter(state.options.limits, isBuffered: true)
            }
            return request
        case .stop:
            return nil
        case .fail(let limit):
            lock.withLock {
                transfers[task.taskIdentifier]?.redirectFailure = RequestError(
                    kind: .tooManyRedirects, response: redirect, detail: "more than \(limit) redirects")
            }
            return nil
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

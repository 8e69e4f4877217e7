import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When and how often to send a request again after a transient failure.
///
/// By default only idempotent methods (GET, HEAD, PUT, DELETE, OPTIONS, TRACE) are retried, after a status of
/// 408, 429, 500, 502, 503 or 504 or a transient network error (connection refused, reset or lost, timed out).
/// Delays grow exponentially with full jitter, and a `Retry-After` header (seconds or an HTTP-date) is honoured,
/// never beyond ``maximumDelay``. A `Timeout(_, for: .resource)` covers every attempt and the waits between
/// them; cancelling the task stops the waits.
///
/// ```swift
/// let client = Client(baseURL: url) { $0.retryPolicy = .exponential(maxAttempts: 4, baseDelay: 0.2) }
/// Request { Url(url); Retry(.none) }
/// ```
public struct RetryPolicy: Sendable {
    /// The most attempts in all, the first included; 1 means no retry.
    public var maxAttempts: Int
    /// The delay before the first retry, in seconds, before jitter.
    public var baseDelay: Double
    /// The factor each further retry multiplies the delay by.
    public var multiplier: Double
    /// The longest wait between attempts, in seconds, `Retry-After` included.
    public var maximumDelay: Double
    /// Whether delays are randomised between half and the full computed delay.
    public var usesJitter: Bool
    /// The methods that may be retried.
    public var retryableMethods: Set<HTTPMethod>
    /// The statuses that cause a retry.
    public var retryableStatuses: Set<Int>
    /// The network error codes that cause a retry.
    public var retryableErrorCodes: Set<URLError.Code>
    /// Whether a `Retry-After` header sets the delay.
    public var honoursRetryAfter: Bool

    /// Creates a policy; see `exponential(maxAttempts:baseDelay:multiplier:maximumDelay:jitter:)` for the
    /// usual shortcut.
    ///
    /// ```swift
    /// var policy = RetryPolicy(maxAttempts: 3)
    /// policy.retryableMethods.insert(.post)
    /// ```
    public init(
        maxAttempts: Int, baseDelay: Double = 0.5, multiplier: Double = 2, maximumDelay: Double = 30,
        usesJitter: Bool = true, retryableMethods: Set<HTTPMethod> = RetryPolicy.idempotentMethods,
        retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableErrorCodes: Set<URLError.Code> = RetryPolicy.transientErrorCodes, honoursRetryAfter: Bool = true
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.multiplier = max(1, multiplier)
        self.maximumDelay = max(0, maximumDelay)
        self.usesJitter = usesJitter
        self.retryableMethods = retryableMethods
        self.retryableStatuses = retryableStatuses
        self.retryableErrorCodes = retryableErrorCodes
        self.honoursRetryAfter = honoursRetryAfter
    }

    /// GET, HEAD, PUT, DELETE, OPTIONS and TRACE.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, .trace]

    /// Connection refused, reset or lost, and timeouts.
    public static let transientErrorCodes: Set<URLError.Code> = [
        .cannotConnectToHost, .networkConnectionLost, .timedOut, .notConnectedToInternet, .cannotFindHost,
        .dnsLookupFailed,
    ]

    /// Never retries: the default.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// Retries with exponential backoff and jitter.
    ///
    /// ```swift
    /// Retry(.exponential(maxAttempts: 5, baseDelay: 0.1, maximumDelay: 5))
    /// ```
    public static func exponential(
        maxAttempts: Int = 3, baseDelay: Double = 0.5, multiplier: Double = 2, maximumDelay: Double = 30,
        jitter: Bool = true
    ) -> RetryPolicy {
        RetryPolicy(
            maxAttempts: maxAttempts, baseDelay: baseDelay, multiplier: multiplier, maximumDelay: maximumDelay,
            usesJitter: jitter)
    }

    /// The delay before the next attempt, or nil when the outcome should be passed on.
    ///
    /// ```swift
    /// policy.delay(after: .success(response), method: .get, attempt: 1)  // 0.5 for a 503, nil for a 200
    /// ```
    /// - Parameters:
    ///   - outcome: The attempt's response or error.
    ///   - method: The request method.
    ///   - attempt: The attempt that just finished, from 1.
    /// - Returns: Seconds to wait, or nil for no retry.
    public func delay(after outcome: Result<Response, RequestError>, method: HTTPMethod, attempt: Int) -> Double? {
        guard attempt < maxAttempts, retryableMethods.contains(method) else { return nil }
        switch outcome {
        case .success(let response):
            guard retryableStatuses.contains(response.statusCode) else { return nil }
            if honoursRetryAfter, let seconds = response.headers.retryAfter() { return min(seconds, maximumDelay) }
        case .failure(let error):
            guard isTransient(error) else { return nil }
        }
        let exponential = min(maximumDelay, baseDelay * pow(multiplier, Double(attempt - 1)))
        guard usesJitter, exponential.isFinite, exponential > 0 else { return exponential }
        return Double.random(in: (exponential / 2)...exponential)
    }

    /// Whether an error is a transient network failure worth retrying.
    func isTransient(_ error: RequestError) -> Bool {
        if error.kind == .timedOut { return retryableErrorCodes.contains(.timedOut) }
        guard error.kind == .transport else { return false }
        if let urlError = error.underlyingError as? URLError { return retryableErrorCodes.contains(urlError.code) }
        if let posix = error.underlyingError as? POSIXError {
            return [.ECONNREFUSED, .ECONNRESET, .ECONNABORTED, .EPIPE, .ETIMEDOUT].contains(posix.code)
        }
        return false
    }
}

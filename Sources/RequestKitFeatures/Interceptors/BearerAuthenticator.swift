import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends `Authorization: Bearer <token>` and refreshes the token when the server answers `401`.
///
/// The refresh is single-flight: when many requests get a `401` at once, one refresh runs, and every request
/// waits for it and is retried once with the new token. Requests started during a refresh wait for it too.
/// A request that gets a `401` again after its retry gets that `401` (no loop); a failed refresh fails every
/// waiting request with a ``RequestError`` of kind ``RequestError/Kind/authenticationFailed`` that keeps the
/// `401` response and the refresh error.
///
/// ```swift
/// let auth = BearerAuthenticator(token: storedToken) { expired in
///     try await Request { Url(tokenURL); Method(.post) }.decode(TokenReply.self).accessToken
/// }
/// let client = Client(baseURL: url) { $0.interceptors = [auth] }
/// ```
public struct BearerAuthenticator: Interceptor {
    private let store: TokenStore
    /// The token new requests are sent with, for ``preview(_:)``, which cannot wait for the store.
    private let latest: LatestToken

    /// Creates an authenticator.
    ///
    /// - Parameters:
    ///   - token: The token to start with; nil sends no `Authorization` until the first refresh.
    ///   - refresh: Returns a new token, given the one the server rejected.
    public init(token: String?, refresh: @escaping @Sendable (_ rejected: String?) async throws -> String) {
        latest = LatestToken(token)
        store = TokenStore(token: token, latest: latest, refresh: refresh)
    }

    /// The request with `Authorization: Bearer <token>` when a token is known, as ``adapt(_:)`` sends it (the token of
    /// a refresh in progress, which `adapt` waits for, is not known yet).
    ///
    /// ```swift
    /// print(auth.preview(URLRequest(url: url)).value(forHTTPHeaderField: "Authorization") ?? "no token yet")
    /// ```
    public func preview(_ request: URLRequest) -> URLRequest {
        guard let token = latest.value, RequestProblem.header(name: "Authorization", value: "Bearer \(token)").isEmpty
        else { return request }
        var request = request
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }

    /// The token sent with new requests (after any refresh in progress).
    ///
    /// ```swift
    /// let token = try await auth.currentToken()
    /// ```
    public func currentToken() async throws -> String? {
        try await store.current()
    }

    public func adapt(_ request: URLRequest) async throws -> URLRequest {
        let current: String?
        do {
            current = try await store.current()
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // This request waited for a refresh started by another request's 401, and that refresh failed.
            throw RequestError(
                kind: .authenticationFailed, underlyingError: error,
                detail: "refreshing the bearer token after a 401 failed")
        }
        guard let token = current else { return request }
        // Foundation drops a header value with a control character without a word, so check first.
        if let problem = RequestProblem.header(name: "Authorization", value: "Bearer \(token)").first {
            throw RequestError.invalidRequest([problem])
        }
        var request = request
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }

    public func retry(
        _ request: URLRequest, outcome: Result<Response, RequestError>, context: RetryContext
    ) async throws -> RetryDecision {
        guard case .success(let response) = outcome, response.statusCode == 401, context.previousRetries == 0 else {
            return .doNotRetry
        }
        let header = request.value(forHTTPHeaderField: "Authorization")
        let rejected = header.flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        do {
            _ = try await store.refresh(replacing: rejected)
        } catch {
            throw RequestError(
                kind: .authenticationFailed, response: response, underlyingError: error,
                detail: "refreshing the bearer token after a 401 failed")
        }
        return .retry
    }
}

/// The latest token, readable without waiting: the store sets it whenever its token changes.
private final class LatestToken: @unchecked Sendable {
    // Safe: every access to `token` holds `lock`.
    private let lock = NSLock()
    private var token: String?

    init(_ token: String?) { self.token = token }

    var value: String? {
        get { lock.withLock { token } }
        set { lock.withLock { token = newValue } }
    }
}

/// The token and the refresh in progress; an actor so concurrent requests share one refresh.
private actor TokenStore {
    private var token: String? {
        didSet { latest.value = token }
    }
    private let latest: LatestToken
    private var refreshing: Task<String, any Error>?
    private var failure: (rejected: String?, error: any Error)?
    private let refresher: @Sendable (String?) async throws -> String

    init(token: String?, latest: LatestToken, refresh: @escaping @Sendable (String?) async throws -> String) {
        self.token = token
        self.latest = latest
        self.refresher = refresh
    }

    /// The token for a new request. A new request starts after any earlier failure, so it may refresh again.
    func current() async throws -> String? {
        if let refreshing { return try await refreshing.value }
        failure = nil
        return token
    }

    /// A fresh token: the one a refresh in progress returns, the one a refresh since `rejected` returned, or a
    /// new refresh's. Requests already in flight when a refresh for `rejected` failed fail the same way.
    func refresh(replacing rejected: String?) async throws -> String {
        if let refreshing { return try await refreshing.value }
        if let token, token != rejected { return token }
        if let failure, failure.rejected == rejected { throw failure.error }
        let refresher = self.refresher
        let task = Task { try await refresher(rejected) }
        refreshing = task
        do {
            let fresh = try await task.value
            token = fresh
            refreshing = nil
            return fresh
        } catch {
            failure = (rejected, error)
            refreshing = nil
            throw error
        }
    }
}

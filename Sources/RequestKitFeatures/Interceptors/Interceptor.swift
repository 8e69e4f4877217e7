import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Adapts requests before they are sent and decides whether to retry after each attempt.
///
/// A ``Client`` runs its interceptors in order: every `adapt` before each attempt (including retries), then,
/// after the attempt, each `retry` until one asks for a retry. Both have default implementations, so an
/// interceptor implements only what it needs.
///
/// ```swift
/// struct RequestID: Interceptor {
///     func adapt(_ request: URLRequest) async throws -> URLRequest {
///         var request = request
///         request.setValue(UUID().uuidString, forHTTPHeaderField: "X-Request-ID")
///         return request
///     }
/// }
/// let client = Client(baseURL: url) { $0.interceptors = [RequestID()] }
/// ```
public protocol Interceptor: Sendable {
    /// Returns the request to send in place of `request`; throwing fails the request.
    ///
    /// - Parameter request: The request as built (and adapted by earlier interceptors).
    /// - Returns: The request to send.
    /// - Throws: Any error; a ``RequestError`` is passed on as it is, others are wrapped.
    func adapt(_ request: URLRequest) async throws -> URLRequest

    /// The request as ``adapt(_:)`` would send it, told at once, without waiting and without side effects: what
    /// a request's descriptions show (``RequestRepresentable/cURL``, `client.cURL(for:)`, `print(request)`), so
    /// that they show what is sent. The default leaves the request unchanged: an interceptor that adds a header
    /// implements it to have descriptions show that header.
    ///
    /// - Parameter request: The request as built (and previewed by earlier interceptors).
    /// - Returns: The request as `adapt` would make it, as far as can be told without waiting.
    func preview(_ request: URLRequest) -> URLRequest

    /// Decides whether to send the request again after an attempt.
    ///
    /// - Parameters:
    ///   - request: The request that was sent, as adapted.
    ///   - outcome: The response, or the error of that attempt.
    ///   - context: Which attempt this was, and how many retries this interceptor already asked for.
    /// - Returns: ``RetryDecision/doNotRetry`` to pass the outcome on, or a retry.
    /// - Throws: Any error, which fails the request in place of the outcome.
    func retry(
        _ request: URLRequest, outcome: Result<Response, RequestError>, context: RetryContext
    ) async throws -> RetryDecision
}

extension Interceptor {
    /// Sends the request unchanged.
    ///
    /// ```swift
    /// struct RetryOnly: Interceptor { /* adapt is inherited: the request goes as built */ }
    /// ```
    public func adapt(_ request: URLRequest) async throws -> URLRequest { request }

    /// Shows the request unchanged.
    ///
    /// ```swift
    /// struct RequestID: Interceptor {
    ///     func adapt(_ request: URLRequest) async throws -> URLRequest { preview(request) }
    ///     func preview(_ request: URLRequest) -> URLRequest {
    ///         var request = request
    ///         request.setValue("per-request id", forHTTPHeaderField: "X-Request-ID")
    ///         return request
    ///     }
    /// }
    /// ```
    public func preview(_ request: URLRequest) -> URLRequest { request }

    /// Never retries.
    ///
    /// ```swift
    /// struct AdaptOnly: Interceptor { /* retry is inherited: outcomes pass on */ }
    /// ```
    public func retry(
        _ request: URLRequest, outcome: Result<Response, RequestError>, context: RetryContext
    ) async throws -> RetryDecision {
        .doNotRetry
    }
}

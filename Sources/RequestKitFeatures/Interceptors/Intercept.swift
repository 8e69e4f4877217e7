import RequestKitModel

/// Adds an interceptor to this request, after the client's.
///
/// ```swift
/// Request {
///     Url("http://127.0.0.1:8080/bearer")
///     Intercept(BearerAuthenticator(token: token) { _ in try await refreshToken() })
/// }
/// ```
public struct Intercept: RequestComponent {
    /// The interceptor.
    public let interceptor: any Interceptor

    /// Adds `interceptor`.
    ///
    /// ```swift
    /// Intercept(RequestID())
    /// ```
    public init(_ interceptor: any Interceptor) { self.interceptor = interceptor }

    public func apply(to parts: inout RequestParts) {
        parts[option: InterceptorsKey.self].append(interceptor)
    }
}

package enum InterceptorsKey: RequestOptionKey {
    package static let defaultValue: [any Interceptor] = []
}

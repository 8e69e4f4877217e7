import Foundation

/// The transport of requests that name none (no `Using(…)`, a ``Client`` without a transport): the one place where
/// it is chosen.
///
/// On Linux it is ``HTTP1Transport/shared``, for `http` and `https`, unless the environment names a proxy
/// (`HTTPS_PROXY`, `https_proxy`, `HTTP_PROXY`, `http_proxy` or `ALL_PROXY`, read once, when the first request
/// is sent): the native transport does not tunnel through proxies, so those processes keep
/// ``URLSessionTransport/shared``, whose libcurl honours the proxy variables and `NO_PROXY`. On Apple platforms it
/// is ``URLSessionTransport/shared``.
///
/// ```swift
/// let transport = DefaultTransport.shared   // HTTP1Transport.shared on Linux without a proxy
/// ```
package enum DefaultTransport {
    /// The transport requests use when they name none.
    package static let shared: any Transport = choose(environment: ProcessInfo.processInfo.environment)

    /// The environment variables that name a proxy the native transport would not honour.
    static let proxyVariables = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]

    /// The default for a process with `environment`.
    static func choose(environment: [String: String]) -> any Transport {
        #if canImport(COpenSSL)
        if usesProxy(environment) { return URLSessionTransport.shared }
        return HTTP1Transport.shared
        #else
        return URLSessionTransport.shared
        #endif
    }

    /// Whether `environment` names a proxy (a non-empty value in one of ``proxyVariables``).
    static func usesProxy(_ environment: [String: String]) -> Bool {
        proxyVariables.contains { environment[$0].map { !$0.isEmpty } ?? false }
    }
}

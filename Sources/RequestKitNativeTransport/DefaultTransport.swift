import Foundation
import RequestKitModel
import RequestKitURLSession

/// The transport of requests that name none (no `Using(…)`, a ``Client`` without a transport): the one place where
/// it is chosen.
///
/// On Linux it is ``NativeTransport/shared``, for `http` and `https`, with or without a proxy in the environment:
/// the native transport reads `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy` itself
/// (``ProxyConfiguration/environment``). On Apple platforms it is ``URLSessionTransport/shared``.
///
/// ```swift
/// let transport = DefaultTransport.shared   // NativeTransport.shared on Linux
/// ```
package enum DefaultTransport {
    /// The transport requests use when they name none.
    package static let shared: any Transport = choose()

    /// The default for this platform.
    static func choose() -> any Transport {
        #if canImport(COpenSSL)
        return NativeTransport.shared
        #else
        return URLSessionTransport.shared
        #endif
    }
}

import Foundation
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel

/// A request as a ``Client`` sends it: the client's base URL, defaults and features (interceptors, retries,
/// redirects, monitors, cookies, transport, clock, coders) applied before the request's own components.
///
/// Make one with `client.request(_:)`. It is a request like any other: `send`, `data`, `decode`, `stream`,
/// `download(to:)`, `events()`, `poll(every:)`, groups and chains all work on it, through the same pipeline.
/// `decode(_:)` uses the client's decoder.
///
/// ```swift
/// let client = Client(baseURL: server.url("/api/")) { Header.Authorization(.bearer(token)) }
/// let feed = client.request(Request { Path("feed") })
/// for try await event in feed.events() { print(event.data) }
/// let results = try await RequestGroup { client.request(Request { Path("a") }); client.request(Request { Path("b") }) }
///     .send()
/// ```
public struct ClientRequest: RequestRepresentable {
    /// The request with the client's defaults applied first.
    ///
    /// ```swift
    /// let parts = client.request(Request { Path("users") }).request.parts()
    /// ```
    public let request: Request
}

/// Applies a client's configuration to the parts of a request, before the request's own components.
struct ClientDefaults: RequestComponent {
    let configuration: Client.Configuration

    func apply(to parts: inout RequestParts) {
        parts[option: BaseURLKey.self] = configuration.baseURL
        parts[option: JSONEncoderKey.self] = configuration.encoder
        parts[option: JSONDecoderKey.self] = configuration.decoder
        parts.validation = configuration.validation
        parts.transport = configuration.transport
        parts[option: InterceptorsKey.self] = configuration.interceptors
        parts[option: EventMonitorsKey.self] = configuration.monitors
        parts[option: RetryPolicyKey.self] = configuration.retryPolicy
        parts[option: RedirectPolicyKey.self] = configuration.redirectPolicy
        parts[option: CookieJarKey.self] = configuration.cookieJar
        if let cache = configuration.cache { parts[option: ResponseCacheKey.self] = cache }
        parts[option: RequestClockKey.self] = configuration.clock
        parts[option: ResponseLimitsKey.self] = configuration.responseLimits
        parts[option: SensitiveDataKey.self] = configuration.sensitiveData
        configuration.traceContext?.apply(to: &parts)
        for component in configuration.defaults { component.apply(to: &parts) }
    }
}

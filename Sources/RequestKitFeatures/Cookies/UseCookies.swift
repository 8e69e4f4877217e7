import RequestKitModel

/// Sends the matching cookies of a jar with this request and stores the cookies its response sets.
///
/// ```swift
/// let jar = CookieJar()
/// _ = try await Request { Url("http://127.0.0.1:8080/cookies/set?a=1"); UseCookies(jar) }.send()
/// ```
public struct UseCookies: RequestComponent {
    /// The jar.
    public let jar: CookieJar

    /// Uses `jar` for this request.
    ///
    /// ```swift
    /// UseCookies(jar)
    /// ```
    public init(_ jar: CookieJar) { self.jar = jar }

    public func apply(to parts: inout RequestParts) {
        parts[option: CookieJarKey.self] = jar
    }
}

package enum CookieJarKey: RequestOptionKey {
    package static let defaultValue: CookieJar? = nil
}

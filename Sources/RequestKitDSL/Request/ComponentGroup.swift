import RequestKitModel

/// A reusable group of components, written with the request builder, like a SwiftUI view's `body`.
///
/// ```swift
/// struct JSONAPI: ComponentGroup {
///     let token: String
///     var body: any RequestComponent {
///         Header.Accept(.json)
///         Header.Authorization(.bearer(token))
///         Timeout(15)
///     }
/// }
///
/// let request = Request {
///     Url("http://127.0.0.1:8080/me")
///     JSONAPI(token: "t0k3n")
/// }
/// ```
public protocol ComponentGroup: RequestComponent {
    /// The components this group stands for.
    @RequestBuilder var body: any RequestComponent { get }
}

extension ComponentGroup {
    public func apply(to parts: inout RequestParts) {
        body.apply(to: &parts)
    }
}

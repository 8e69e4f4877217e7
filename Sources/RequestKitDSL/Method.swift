import RequestKitModel

/// Sets the request method; a request without one is a GET.
///
/// ```swift
/// Method(.post)
/// Method(.custom("PURGE"))
/// Method("PROPFIND")
/// ```
public struct Method: RequestComponent {
    /// The method to use.
    public let method: HTTPMethod

    /// Sets the method. An invalid token is reported when the request is built.
    ///
    /// ```swift
    /// Method(.delete)
    /// ```
    public init(_ method: HTTPMethod) { self.method = method }

    public func apply(to parts: inout RequestParts) {
        parts.method = method
    }
}

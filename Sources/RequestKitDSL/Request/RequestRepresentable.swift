import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Anything that stands for a ``Request``: `Request` itself, `AnyRequest<Value>`, and the requests a
/// ``Client`` or endpoint prepares. The sending and inspecting calls are defined once, here.
///
/// ```swift
/// func log(_ request: some RequestRepresentable) { print(request.cURL) }
/// ```
public protocol RequestRepresentable: Sendable {
    /// The underlying request.
    var request: Request { get }
}

extension RequestRepresentable {
    /// Builds the Foundation request, validating everything first.
    ///
    /// ```swift
    /// let urlRequest = try Request { Url("http://127.0.0.1:8080/a b") }.urlRequest()
    /// ```
    /// - Returns: The `URLRequest` a transport sends.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` whose ``RequestError/problems``
    ///   list every problem: no Url or two, a malformed URL or scheme, an invalid header, a body on GET, a bad
    ///   method.
    public func urlRequest() throws(RequestError) -> URLRequest {
        try request.parts().makeURLRequest()
    }
}

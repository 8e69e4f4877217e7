import Foundation

/// What the pipeline knows of a `URLRequest` it built and checked, handed to the transport with the request's
/// first hop (``TransferRequest``) so that the transport need not read them back: FoundationNetworking's
/// accessors are slow (each goes through a locked class, and the header fields come back as a new dictionary).
///
/// Every fact holds for as long as the `URLRequest` and the body are the ones it was made with: a
/// ``TransferRequest`` drops it when either changes, and the pipeline does not hand it over after an interceptor or a
/// redirect. A class: the facts go from the pipeline to the transport through several values, and a reference is
/// copied for the cost of one retain.
///
/// ```swift
/// let (urlRequest, facts) = try parts.makeCheckedRequest()
/// var transfer = TransferRequest(urlRequest)
/// transfer.facts = facts
/// ```
final class RequestFacts: Sendable {
    /// The scheme, host and port of the URL, when it is in the plain form.
    let authority: PlainURLAuthority?
    /// `httpMethod`, as the request gives it back; a valid token.
    let method: String
    /// `timeoutInterval`.
    let timeout: Double
    /// Whether the request has no header fields at all: `allHTTPHeaderFields` is empty. False when not known.
    let hasNoHeaderFields: Bool

    init(authority: PlainURLAuthority?, method: String, timeout: Double, hasNoHeaderFields: Bool) {
        self.authority = authority
        self.method = method
        self.timeout = timeout
        self.hasNoHeaderFields = hasNoHeaderFields
    }

    /// These facts, for the request with header fields added (by a cookie jar, say).
    func addingHeaderFields() -> RequestFacts {
        guard hasNoHeaderFields else { return self }
        return RequestFacts(authority: authority, method: method, timeout: timeout, hasNoHeaderFields: false)
    }
}

import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The last check of a request before a transport sees it: whatever changed it after it was built (interceptors,
/// an authenticator, the cookie jar, a redirect policy), nothing that cannot be sent safely goes out.
///
/// It checks the method, every header name (a token) and value (no control characters: CR, LF and NUL would let
/// a value add headers of its own), and the URL (http or https, or http+unix or https+unix, with a host). A failure is a ``RequestError`` of
/// kind ``RequestError/Kind/invalidRequest`` naming each bad header, and nothing is sent.
enum OutgoingRequestCheck {
    /// Throws when `head` cannot be sent as it is. A built request had its method and URL checked when it was
    /// built: only its header fields are checked again (the cookie jar may have set one).
    static func validate(_ head: TransferRequest.Head) throws(RequestError) {
        switch head {
        case .given(let request):
            try validate(request)
        case .built(let built):
            let problems = built.headers.flatMap { RequestProblem.header(name: $0.name, value: $0.value) }
            if !problems.isEmpty { throw RequestError.invalidRequest(problems) }
        }
    }

    /// Throws when `request` cannot be sent as it is.
    static func validate(_ request: URLRequest) throws(RequestError) {
        var problems: [RequestProblem] = []
        let method = request.httpMethod ?? "GET"
        if !HTTPSyntax.isToken(method) {
            problems.append(
                RequestProblem(
                    .invalidMethod, "the method \"\(RequestParts.escaped(method))\" is not a valid HTTP token"))
        }
        if !HTTPSyntax.isRequestScheme(request.url?.scheme ?? "") || (request.url?.host ?? "").isEmpty {
            problems.append(
                RequestProblem(
                    .unsupportedScheme,
                    "the URL \"\(request.url?.absoluteString ?? "")\" is not an http or https URL with a host"))
        }
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
            problems += RequestProblem.header(name: name, value: value)
        }
        if !problems.isEmpty { throw RequestError.invalidRequest(problems) }
    }
}

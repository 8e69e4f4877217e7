import Foundation
import RequestKitModel

extension ProxyServer {
    /// The error of a `407 Proxy Authentication Required` from this proxy, to a `CONNECT` or to a plain request in
    /// absolute form: ``RequestError/ConnectionFailure/proxyAuthenticationRequired``, with the proxy's answer (its
    /// `Proxy-Authenticate` challenge) kept as the error's ``RequestError/response`` and named in the message.
    ///
    /// ```swift
    /// throw server.authenticationRequired(by: response)
    /// ```
    func authenticationRequired(by response: Response) -> RequestError {
        let challenge = response.headers["Proxy-Authenticate"].map { " (\($0))" } ?? ""
        let reason =
            credentials.map { "rejected the credentials for user \"\($0.user)\"" } ?? "requires credentials"
        return RequestError(
            kind: .transport, response: response, underlyingError: POSIXError(.EACCES),
            detail: "The \(place) \(reason): 407 Proxy Authentication Required\(challenge)",
            connectionFailure: .proxyAuthenticationRequired)
    }

    /// The error of `response` when it is the proxy's refusal of a plain request sent to it in absolute form (a
    /// `407`, with the challenge); nil for any other response, and for a connection that is not through an HTTP
    /// proxy in absolute form (a `407` inside a tunnel is the origin's, a response like any other).
    ///
    /// ```swift
    /// if let error = ProxyServer.refusal(of: response, on: key) { throw error }
    /// ```
    static func refusal(of response: Response, on key: ConnectionKey) -> RequestError? {
        guard response.status == 407, let proxy = key.proxy, proxy.server.isHTTP, !key.isTunnelled else {
            return nil
        }
        return proxy.server.authenticationRequired(by: response)
    }
}

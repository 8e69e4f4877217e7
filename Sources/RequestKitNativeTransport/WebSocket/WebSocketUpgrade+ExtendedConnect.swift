#if canImport(CNghttp2)
import Foundation
import RequestKitHTTP2
import RequestKitModel
import RequestKitWebSocket

extension WebSocketUpgrade {
    /// The head of the extended CONNECT that opens the connection on an HTTP/2 stream instead (RFC 8441 §5):
    /// `:protocol` `websocket`, the URL's scheme, host and path, the request's own fields (no `Content-Length`,
    /// `Transfer-Encoding` or `Proxy-Authorization`, no `Upgrade`, `Connection` or `Sec-WebSocket-Key` of its own;
    /// `Host` becomes `:authority`), then the handshake's fields without the upgrade's.
    ///
    /// ```swift
    /// let head = try upgrade.extendedConnectHead(fields: request.fieldsAsSent, target: target)
    /// let stream = try session.openTunnel(head)
    /// ```
    ///
    /// - Throws: ``RequestError`` of kind `.transport` for a field that cannot be sent safely, as the upgrade's.
    func extendedConnectHead(
        fields: [HTTPHeader], target: HTTP1RequestEncoder.Target
    ) throws(RequestError) -> HTTP2RequestHead {
        var headers = HTTPHeaders()
        var authority = target.hostHeader
        for field in fields {
            guard HTTPSyntax.isToken(field.name), HTTPSyntax.invalidValueByte(in: field.value) == nil else {
                throw RequestError.transport(
                    POSIXError(.EINVAL), detail: "the header \(field.name) has a byte that cannot be sent")
            }
            switch field.name.lowercased() {
            case "content-length", "transfer-encoding", "proxy-authorization": continue
            case "host": authority = field.value
            case let name where WebSocketHandshake.isUpgradeOnly(name): continue
            default: headers.add(field.name, field.value)
            }
        }
        for field in handshake.extendedConnectHeaderFields { headers.add(field.name, field.value) }
        return HTTP2RequestHead(
            connecting: "websocket", scheme: target.key.isSecure ? "https" : "http", authority: authority,
            path: target.path, headers: headers)
    }
}
#endif

import Foundation
import RequestKitModel

/// The same handshake over an HTTP/2 stream, opened with extended CONNECT (RFC 8441): `:protocol` `websocket` takes
/// the place of the upgrade, so the request carries no `Upgrade`, `Connection` or `Sec-WebSocket-Key`, and a 2xx
/// answer (RFC 8441 §5: 200) without `Sec-WebSocket-Accept` opens the connection. The subprotocol and the
/// permessage-deflate parameters are negotiated by the same fields, and checked by the same rules.
///
/// ```swift
/// let handshake = WebSocketHandshake(subprotocols: ["chat"], compression: WebSocket.Compression())
/// let head = HTTP2RequestHead(
///     connecting: "websocket", scheme: "https", authority: "chat.example.com", path: "/live",
///     headers: HTTPHeaders(handshake.extendedConnectHeaderFields))
/// let agreement = try handshake.acceptExtendedConnect(status: 200, headers: answer.headers)
/// ```
extension WebSocketHandshake {
    /// The header fields of an extended CONNECT request (RFC 8441 §5), in the order they are sent: the version, the
    /// subprotocols and the extension offer.
    package var extendedConnectHeaderFields: [HTTPHeader] {
        headerFields.filter { field in
            !["upgrade", "connection", "sec-websocket-key"].contains(field.name.lowercased())
        }
    }

    /// Whether `name` is a field the handshake sets over HTTP/1.1 only, which an extended CONNECT never carries: a
    /// request's own `Upgrade`, `Connection` or `Sec-WebSocket-Key` is left out.
    package static func isUpgradeOnly(_ name: String) -> Bool {
        ["upgrade", "connection", "sec-websocket-key", "sec-websocket-accept"].contains(name.lowercased())
    }

    /// Checks the server's answer to an extended CONNECT.
    ///
    /// - Parameters:
    ///   - status: The answer's status code: a 2xx accepts.
    ///   - headers: Its header fields.
    ///   - body: Its body, read when the status is not 2xx, kept in the error.
    ///   - url: The URL asked for, kept in the error's response.
    /// - Returns: What the server agreed to.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/webSocket``: ``RequestError/WebSocketFailure/handshakeRefused``
    ///   (with the response) for a status that is not 2xx, as the upgrade reports it,
    ///   ``RequestError/WebSocketFailure/invalidHandshake`` for a subprotocol or an extension that was not offered.
    package func acceptExtendedConnect(
        status: Int, headers: HTTPHeaders, body: Data = Data(), url: URL? = nil
    ) throws(RequestError) -> Agreement {
        guard (200..<300).contains(status) else {
            throw Self.refusal(status: status, headers: headers, body: body, url: url)
        }
        return Agreement(subprotocol: try chosenSubprotocol(headers), compression: try agreedExtensions(headers))
    }
}

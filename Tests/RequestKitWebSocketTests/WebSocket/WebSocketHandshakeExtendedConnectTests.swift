import Foundation
import RequestKitModel
import RequestKitWebSocket
import Testing

/// The opening handshake over an HTTP/2 stream (RFC 8441) without a socket: the fields an extended CONNECT carries,
/// and the answers that open the connection or refuse it.
@Suite("WebSocket handshake over extended CONNECT")
struct WebSocketHandshakeExtendedConnectTests {
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="

    @Test("the request carries the version, the subprotocols and the offer: no Upgrade, Connection or key")
    func headerFields() {
        let handshake = WebSocketHandshake(
            key: Self.key, subprotocols: ["chat", "superchat"],
            compression: WebSocket.Compression(serverNoContextTakeover: true))
        #expect(
            handshake.extendedConnectHeaderFields.map { "\($0.name): \($0.value)" } == [
                "Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: chat, superchat",
                "Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_max_window_bits",
            ])
        let bare = WebSocketHandshake(key: Self.key, subprotocols: [], compression: nil)
        #expect(bare.extendedConnectHeaderFields.map(\.name) == ["Sec-WebSocket-Version"])
    }

    @Test(
        "a request's own upgrade fields are the HTTP/1.1 handshake's only",
        arguments: [
            ("Upgrade", true), ("connection", true), ("Sec-WebSocket-Key", true), ("sec-websocket-accept", true),
            ("Sec-WebSocket-Protocol", false), ("Authorization", false),
        ])
    func upgradeOnlyFields(name: String, isUpgradeOnly: Bool) {
        #expect(WebSocketHandshake.isUpgradeOnly(name) == isUpgradeOnly)
    }

    @Test("a 200 without Sec-WebSocket-Accept opens with the subprotocol and compression the server chose")
    func accepted() throws {
        let handshake = WebSocketHandshake(
            key: Self.key, subprotocols: ["chat", "superchat"], compression: WebSocket.Compression())
        let agreement = try handshake.acceptExtendedConnect(
            status: 200,
            headers: [
                "sec-websocket-protocol": "superchat",
                "sec-websocket-extensions": "permessage-deflate; server_max_window_bits=10; client_max_window_bits=12",
            ])
        #expect(agreement.subprotocol == "superchat")
        #expect(agreement.compression == PerMessageDeflateParameters(serverMaxWindowBits: 10, clientMaxWindowBits: 12))
        #expect(try handshake.acceptExtendedConnect(status: 200, headers: [:]) == WebSocketHandshake.Agreement())
    }

    @Test("a status that is not 2xx is a refusal that keeps the status, headers and body, as the upgrade's")
    func refused() {
        let handshake = WebSocketHandshake(key: Self.key, subprotocols: [], compression: nil)
        let url = URL(string: "https://127.0.0.1:9/feed")
        for status in [101, 400, 403, 501] {
            #expect {
                try handshake.acceptExtendedConnect(
                    status: status, headers: ["content-type": "text/plain"], body: Data("no token".utf8), url: url)
            } throws: { error in
                let error = error as? RequestError
                return error?.kind == .webSocket && error?.webSocketFailure == .handshakeRefused
                    && error?.statusCode == status && error?.responseBody == Data("no token".utf8)
                    && error?.responseHeaders?["Content-Type"] == "text/plain" && error?.response?.url == url
            }
        }
    }

    @Test("a 200 that chooses what was not offered fails as invalid, as the upgrade's check says")
    func invalid() {
        let handshake = WebSocketHandshake(key: Self.key, subprotocols: ["chat"], compression: nil)
        let answers: [(HTTPHeaders, String)] = [
            (
                ["sec-websocket-protocol": "graphql-ws"],
                "the server chose the subprotocol \"graphql-ws\"; the offer was chat"
            ),
            (
                ["sec-websocket-extensions": "permessage-deflate"],
                "the server agreed to the extension \"permessage-deflate\", which was not offered"
            ),
        ]
        for (headers, message) in answers {
            #expect {
                try handshake.acceptExtendedConnect(status: 200, headers: headers)
            } throws: { error in
                let error = error as? RequestError
                return error?.webSocketFailure == .invalidHandshake && error?.webSocketFailureMessage == message
            }
        }
    }
}

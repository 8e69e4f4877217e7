import Foundation
import RequestKitModel
import RequestKitTestSupport
import RequestKitWebSocket
import Testing

/// The opening handshake without a socket: the upgrade request's fields, and each rule a `101` answer must keep,
/// broken one at a time.
@Suite("WebSocket opening handshake")
struct WebSocketHandshakeTests {
    /// RFC 6455 §1.3's key and the accept value it asks for.
    static let rfcKey = "dGhlIHNhbXBsZSBub25jZQ=="
    static let rfcAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    static func answer(_ extra: [(String, String)] = [], accept: String = rfcAccept) -> HTTPHeaders {
        var headers: HTTPHeaders = ["Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": accept]
        for (name, value) in extra { headers.add(name, value) }
        return headers
    }

    @Test("SHA-1 comes from the system library and matches FIPS 180-4's example")
    func sha1() {
        let digest = SHA1Digest.hash(Array("abc".utf8)).map { $0.map { String(format: "%02x", $0) }.joined() }
        #expect(digest == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    @Test("the accept value of RFC 6455's example key is the RFC's")
    func rfcAcceptValue() {
        #expect(WebSocketHandshake.acceptValue(for: Self.rfcKey) == Self.rfcAccept)
    }

    @Test(
        "the upgrade request carries Upgrade, Connection, the key, version 13, the subprotocols and the offer, in order"
    )
    func headerFields() {
        let handshake = WebSocketHandshake(
            key: Self.rfcKey, subprotocols: ["chat", "superchat"],
            compression: WebSocket.Compression(serverNoContextTakeover: true))
        #expect(
            handshake.headerFields.map { "\($0.name): \($0.value)" } == [
                "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: \(Self.rfcKey)",
                "Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: chat, superchat",
                "Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_max_window_bits",
            ])
        let bare = WebSocketHandshake(key: Self.rfcKey, subprotocols: [], compression: nil)
        #expect(
            bare.headerFields.map(\.name) == ["Upgrade", "Connection", "Sec-WebSocket-Key", "Sec-WebSocket-Version"])
    }

    @Test("the key is 16 bytes of the generator in base64, new for each handshake")
    func keyFromGenerator() throws {
        var counting = SplitMix64(state: 1)
        let first = WebSocketHandshake(subprotocols: [], compression: nil, using: &counting)
        let second = WebSocketHandshake(subprotocols: [], compression: nil, using: &counting)
        #expect(try #require(Data(base64Encoded: first.key)).count == 16)
        #expect(first.key != second.key)
        let random = WebSocketHandshake(subprotocols: [], compression: nil)
        #expect(try #require(Data(base64Encoded: random.key)).count == 16)
    }

    @Test("a valid 101 opens with the subprotocol and compression the server chose")
    func accepted() throws {
        let handshake = WebSocketHandshake(
            key: Self.rfcKey, subprotocols: ["chat", "superchat"], compression: WebSocket.Compression())
        let agreement = try handshake.accept(
            status: 101,
            headers: Self.answer([
                ("Sec-WebSocket-Protocol", "superchat"),
                (
                    "Sec-WebSocket-Extensions",
                    "permessage-deflate; server_max_window_bits=10; client_max_window_bits=12"
                ),
            ]))
        #expect(agreement.subprotocol == "superchat")
        #expect(
            agreement.compression
                == PerMessageDeflateParameters(serverMaxWindowBits: 10, clientMaxWindowBits: 12))
        let plain = try handshake.accept(
            status: 101,
            headers: [
                "upgrade": "WebSocket", "connection": "keep-alive, upgrade", "sec-websocket-accept": Self.rfcAccept,
            ])
        #expect(plain == WebSocketHandshake.Agreement())
    }

    @Test("another status is a refusal that keeps the status, headers and body")
    func refused() {
        let handshake = WebSocketHandshake(key: Self.rfcKey, subprotocols: [], compression: nil)
        let url = URL(string: "http://127.0.0.1:9/feed")
        #expect {
            try handshake.accept(
                status: 403, headers: ["Content-Type": "text/plain"], body: Data("no token".utf8), url: url)
        } throws: { error in
            let error = error as? RequestError
            return error?.kind == .webSocket && error?.webSocketFailure == .handshakeRefused
                && error?.statusCode == 403 && error?.responseBody == Data("no token".utf8)
                && error?.responseHeaders?["Content-Type"] == "text/plain" && error?.response?.url == url
                && error?.description.contains("the server refused the WebSocket handshake with 403 Forbidden") == true
        }
    }

    /// A `101` answer that breaks a rule, and what the error says.
    struct Broken: Sendable, CustomTestStringConvertible {
        let name: String
        let headers: HTTPHeaders
        let message: String
        var subprotocols: [String] = []
        var compression: WebSocket.Compression? = WebSocket.Compression()
        var testDescription: String { name }
    }

    static let broken: [Broken] = [
        Broken(
            name: "no Upgrade", headers: ["Connection": "Upgrade", "Sec-WebSocket-Accept": rfcAccept],
            message: "the server answers 101 without Upgrade: websocket"),
        Broken(
            name: "Upgrade: h2c",
            headers: ["Upgrade": "h2c", "Connection": "Upgrade", "Sec-WebSocket-Accept": rfcAccept],
            message: "the server answers 101 without Upgrade: websocket"),
        Broken(
            name: "no Connection: Upgrade",
            headers: ["Upgrade": "websocket", "Connection": "close", "Sec-WebSocket-Accept": rfcAccept],
            message: "the server answers 101 without Connection: Upgrade"),
        Broken(
            name: "no accept value", headers: ["Upgrade": "websocket", "Connection": "Upgrade"],
            message: "the server answers 101 without Sec-WebSocket-Accept"),
        Broken(
            name: "a wrong accept value", headers: answer(accept: "AAAAAAAAAAAAAAAAAAAAAAAAAAA="),
            message:
                "the server sent Sec-WebSocket-Accept \"AAAAAAAAAAAAAAAAAAAAAAAAAAA=\"; the key asks for \"\(rfcAccept)\""
        ),
        Broken(
            name: "a subprotocol not offered", headers: answer([("Sec-WebSocket-Protocol", "graphql-ws")]),
            message: "the server chose the subprotocol \"graphql-ws\"; the offer was chat", subprotocols: ["chat"]),
        Broken(
            name: "a subprotocol when none was offered", headers: answer([("Sec-WebSocket-Protocol", "chat")]),
            message: "the server chose the subprotocol \"chat\"; none was offered"),
        Broken(
            name: "two subprotocols", headers: answer([("Sec-WebSocket-Protocol", "a, b")]),
            message: "the server chose more than one subprotocol: a, b", subprotocols: ["a", "b"]),
        Broken(
            name: "an extension not offered", headers: answer([("Sec-WebSocket-Extensions", "x-webkit-deflate-frame")]),
            message: "the server agreed to the extension \"x-webkit-deflate-frame\", which was not offered"),
        Broken(
            name: "deflate when compression was not offered",
            headers: answer([("Sec-WebSocket-Extensions", "permessage-deflate")]),
            message: "the server agreed to the extension \"permessage-deflate\", which was not offered",
            compression: nil),
        Broken(
            name: "deflate twice",
            headers: answer([("Sec-WebSocket-Extensions", "permessage-deflate, permessage-deflate")]),
            message: "the server agreed to permessage-deflate twice"),
        Broken(
            name: "a malformed extension list",
            headers: answer([("Sec-WebSocket-Extensions", "permessage-deflate; =3")]),
            message:
                "the server sent a malformed Sec-WebSocket-Extensions: expected a parameter name after \";\" in \"permessage-deflate; =3\""
        ),
    ]

    @Test("a 101 that breaks the handshake fails as invalid, saying which rule", arguments: broken)
    func invalid(_ broken: Broken) {
        let handshake = WebSocketHandshake(
            key: Self.rfcKey, subprotocols: broken.subprotocols, compression: broken.compression)
        #expect {
            try handshake.accept(status: 101, headers: broken.headers)
        } throws: { error in
            let error = error as? RequestError
            return error?.kind == .webSocket && error?.webSocketFailure == .invalidHandshake
                && error?.webSocketFailureMessage == broken.message && error?.response == nil
        }
    }
}

extension RequestError {
    /// The WebSocket failure's message alone.
    var webSocketFailureMessage: String? { (underlyingError as? WebSocketFailureRecord)?.message }
}

#if canImport(CNghttp2)
import Foundation
import RequestKitHTTP2
import RequestKitTestSupport
import Testing

@testable import RequestKitModel
@testable import RequestKitNativeTransport
@testable import RequestKitWebSocket

/// The head of the extended CONNECT that opens a WebSocket on an HTTP/2 stream (RFC 8441 §5), made from the same
/// request and handshake as the HTTP/1.1 upgrade.
@Suite("WebSocket upgrade: the extended CONNECT head")
struct WebSocketUpgradeExtendedConnectTests {
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="

    static func upgrade(_ url: URL, subprotocols: [String] = ["chat"]) -> WebSocketUpgrade {
        WebSocketUpgrade(
            handshake: WebSocketHandshake(
                key: key, subprotocols: subprotocols, compression: WebSocket.Compression(serverNoContextTakeover: true)),
            url: url)
    }

    @Test("CONNECT with :protocol websocket, the request's own fields, then the handshake's without the upgrade's")
    func head() throws {
        let url = try #require(URL(string: "https://chat.example.com:8443/live?room=7"))
        let target = try HTTP1RequestEncoder.target(of: url, tls: TLSSettings(.default))
        let head = try Self.upgrade(url).extendedConnectHead(
            fields: [
                HTTPHeader(name: "Authorization", value: "Bearer abc"), HTTPHeader(name: "Cookie", value: "id=1"),
                HTTPHeader(name: "Upgrade", value: "websocket"), HTTPHeader(name: "Connection", value: "Upgrade"),
                HTTPHeader(name: "Sec-WebSocket-Key", value: "chosen by the user"),
                HTTPHeader(name: "Content-Length", value: "0"), HTTPHeader(name: "Proxy-Authorization", value: "x"),
            ], target: target)
        #expect(
            head.fields == [
                HTTPHeader(name: ":method", value: "CONNECT"), HTTPHeader(name: ":protocol", value: "websocket"),
                HTTPHeader(name: ":scheme", value: "https"),
                HTTPHeader(name: ":authority", value: "chat.example.com:8443"),
                HTTPHeader(name: ":path", value: "/live?room=7"),
                HTTPHeader(name: "authorization", value: "Bearer abc"),
                HTTPHeader(name: "cookie", value: "id=1"), HTTPHeader(name: "sec-websocket-version", value: "13"),
                HTTPHeader(name: "sec-websocket-protocol", value: "chat"),
                HTTPHeader(
                    name: "sec-websocket-extensions",
                    value: "permessage-deflate; server_no_context_takeover; client_max_window_bits"),
            ])
    }

    @Test("A Host field of the request's own becomes :authority; a plain URL's scheme is http")
    func hostAndScheme() throws {
        let url = try #require(URL(string: "http://127.0.0.1:8080/feed"))
        let head = try Self.upgrade(url, subprotocols: []).extendedConnectHead(
            fields: [HTTPHeader(name: "Host", value: "feed.example")], target: try HTTP1RequestEncoder.target(of: url))
        #expect(
            Array(head.fields.prefix(5)) == [
                HTTPHeader(name: ":method", value: "CONNECT"), HTTPHeader(name: ":protocol", value: "websocket"),
                HTTPHeader(name: ":scheme", value: "http"), HTTPHeader(name: ":authority", value: "feed.example"),
                HTTPHeader(name: ":path", value: "/feed"),
            ])
        #expect(!head.fields.contains { $0.name == "host" })
    }

    @Test("A field with a byte that cannot be sent is refused before anything goes out, as the upgrade refuses it")
    func unsafeField() throws {
        let url = try #require(URL(string: "http://127.0.0.1:8080/feed"))
        let target = try HTTP1RequestEncoder.target(of: url)
        #expect {
            try Self.upgrade(url).extendedConnectHead(
                fields: [HTTPHeader(name: "X-Note", value: "a\r\nb")], target: target)
        } throws: { error in
            (error as? RequestError)?.kind == .transport
                && (error as? RequestError)?.description.contains("the header X-Note has a byte") == true
        }
    }
}
#endif

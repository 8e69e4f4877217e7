import Foundation
import RequestKit
import RequestKitWebSocket
import Testing

/// The public vocabulary: a socket's definition and its check, subprotocols, the configuration's bounds, close
/// codes, messages, and what a WebSocket error says.
@Suite("WebSocket definition")
struct WebSocketDefinitionTests {
    @Test("a definition is checked into the handshake's request: the http form of the URL, its headers, its timeout")
    func checksADefinition() throws {
        let checked = try WebSocket {
            Url("wss://127.0.0.1:8443/feed")
            Query("channel", value: "prices")
            Header.Authorization(.bearer("secret-token"))
            Subprotocols("feed.v2", "feed.v1")
            Subprotocols("feed.v0")
            Timeout(10)
            WebSocket.Configuration(maxMessageBytes: 1 << 20, compression: nil)
        }.checked()
        #expect(checked.request.url.absoluteString == "https://127.0.0.1:8443/feed?channel=prices")
        #expect(checked.isSecure)
        #expect(checked.request.headers["Authorization"] == "Bearer secret-token")
        #expect(checked.request.timeout == 10)
        #expect(checked.subprotocols == ["feed.v2", "feed.v1", "feed.v0"])
        #expect(checked.configuration == WebSocket.Configuration(maxMessageBytes: 1 << 20, compression: nil))
        let plain = try WebSocket { Url("ws://127.0.0.1:8080/echo") }.checked()
        #expect(plain.request.url.absoluteString == "http://127.0.0.1:8080/echo")
        #expect(!plain.isSecure)
        #expect(plain.configuration == WebSocket.Configuration())
    }

    @Test("a definition that cannot be a handshake lists every problem at once")
    func reportsProblems() {
        let socket = WebSocket {
            Url("ftp://127.0.0.1/feed")
            Method(.post)
            Body("hello")
            Header.Any(key: "Sec-WebSocket-Protocol", value: "chat")
            Subprotocols("two words")
            WebSocket.Configuration(
                maxMessageBytes: 0, pingInterval: .zero, compression: .init(serverMaxWindowBits: 16))
        }
        #expect {
            try socket.checked()
        } throws: { error in
            guard let error = error as? RequestError, error.kind == .invalidRequest else { return false }
            let messages = Set(error.problems.map(\.message))
            return messages.isSuperset(of: [
                "a WebSocket URL is ws:// or wss://, not ftp", "the WebSocket handshake is a GET, not POST",
                "the WebSocket handshake cannot carry a body",
                "the WebSocket handshake sets Sec-WebSocket-Protocol itself; offer subprotocols with Subprotocols(…)",
                "the subprotocol \"two words\" is not an HTTP token", "maxMessageBytes must be positive, not 0",
                "pingInterval must be positive, not 0.0 seconds",
                "serverMaxWindowBits must be between 8 and 15, not 16",
            ])
        }
        #expect(throws: RequestError.self) { try WebSocket { Header.Any(key: "X-A", value: "1") }.checked() }
    }

    @Test("close codes: the registered ones by name, an application's own by number, the rest refused")
    func closeCodes() throws {
        #expect(WebSocketCloseCode.normalClosure.code == 1000)
        #expect(try #require(WebSocketCloseCode(4001)).code == 4001)
        #expect(WebSocketCloseCode(1000) == .normalClosure)
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 2999, 5000] { #expect(WebSocketCloseCode(code) == nil) }
        #expect(!WebSocketCloseCode.abnormalClosure.canBeSent)
        #expect(WebSocketCloseCode.tryAgainLater.canBeSent)
        #expect(WebSocketCloseCode.messageTooBig.description == "1009 (message too big)")
        #expect(try #require(WebSocketCloseCode(3001)).description == "3001")
    }

    @Test("a message describes its kind and size, never its content")
    func messageDescription() {
        #expect(WebSocketMessage.text("secret κ").description == "text, 9 bytes")
        #expect(WebSocketMessage.binary(Data(count: 3)).description == "binary, 3 bytes")
        #expect("\(WebSocketMessage.text("password=hunter2"))".contains("hunter2") == false)
    }

    @Test("a WebSocket error names its failure, and its close code and reason when the server sent them")
    func errors() {
        let refused = RequestError.webSocket(
            .handshakeRefused, "the server refused the WebSocket handshake with 401 Unauthorized",
            response: Response(status: 401, body: Data("no".utf8)))
        #expect(refused.webSocketFailure == .handshakeRefused)
        #expect(refused.statusCode == 401)
        #expect(refused.webSocketCloseCode == nil)
        #expect(RequestError.timedOut("slow").webSocketFailure == nil)
        #expect(RequestError.WebSocketFailure.pingTimeout.description == "pingTimeout")
    }
}

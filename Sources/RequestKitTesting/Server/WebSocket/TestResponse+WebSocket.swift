import Foundation
import RequestKit

extension TestResponse {
    /// Accepts a WebSocket handshake (`101 Switching Protocols`) and plays `steps` on the connection.
    ///
    /// A request that is not a valid upgrade (no `Upgrade: websocket`, `Connection: Upgrade`, a 16-byte
    /// `Sec-WebSocket-Key`, or version 13) gets a `400` (`426` with `Sec-WebSocket-Version: 13` for another version)
    /// whose text says what was wrong.
    ///
    /// ```swift
    /// server.route("/chat") { _ in .webSocket([.echo], subprotocol: "chat.v1") }
    /// ```
    /// - Parameters:
    ///   - steps: What the server does once the connection is open.
    ///   - subprotocol: The `Sec-WebSocket-Protocol` to answer with, whatever the client offered; none by default.
    ///   - compression: Whether to take a permessage-deflate offer; `true` by default.
    ///   - headers: More header fields for the `101` answer.
    public static func webSocket(
        _ steps: [TestWebSocketStep], subprotocol: String? = nil, compression: Bool = true,
        headers: [(name: String, value: String)] = []
    ) -> TestResponse {
        var response = TestResponse(status: 101, headers: headers)
        response.webSocket = TestWebSocketPlan(steps: steps, subprotocol: subprotocol, acceptsCompression: compression)
        return response
    }
}

/// What a WebSocket route answers: its steps and handshake choices.
struct TestWebSocketPlan: Sendable {
    var steps: [TestWebSocketStep]
    var subprotocol: String?
    var acceptsCompression: Bool
}

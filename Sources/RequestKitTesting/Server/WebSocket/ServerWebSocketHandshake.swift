import Foundation
import RequestKit

/// A ``TestServer``'s side of the opening handshake (RFC 6455 §4.2): the checks of the client's upgrade request,
/// and the `101` answer with the accept value, the subprotocol and the permessage-deflate parameters taken.
///
/// ```swift
/// switch ServerWebSocketHandshake.answer(request, plan: plan) {
/// case .accepted(let head, let compression): …
/// case .refused(let response): …
/// }
/// ```
enum ServerWebSocketHandshake {
    enum Answer {
        /// The `101` head to write, and the permessage-deflate parameters agreed, if any.
        case accepted(head: Data, compression: PerMessageDeflateParameters?)
        /// The request is not an upgrade the server can take: this response says why.
        case refused(TestResponse)
    }

    static func answer(
        _ request: TestRequest, plan: TestWebSocketPlan, extraHeaders: [(name: String, value: String)]
    ) -> Answer {
        func has(_ name: String, token: String) -> Bool {
            request.headers.contains { field in
                field.name.caseInsensitiveEquals(name)
                    && field.value.split(separator: ",").contains {
                        $0.trimmingCharacters(in: .whitespaces).caseInsensitiveEquals(token)
                    }
            }
        }
        guard request.method == "GET" else { return .refused(.text("a WebSocket handshake is a GET", status: 400)) }
        guard has("Upgrade", token: "websocket") else {
            return .refused(.text("a WebSocket handshake needs Upgrade: websocket", status: 400))
        }
        guard has("Connection", token: "upgrade") else {
            return .refused(.text("a WebSocket handshake needs Connection: Upgrade", status: 400))
        }
        guard request.header("Sec-WebSocket-Version") == "13" else {
            var response = TestResponse.text("only WebSocket version 13 is spoken", status: 426)
            response.headers.append(("Sec-WebSocket-Version", "13"))
            return .refused(response)
        }
        guard let key = request.header("Sec-WebSocket-Key"), Data(base64Encoded: key)?.count == 16,
            let accept = WebSocketHandshake.acceptValue(for: key)
        else {
            return .refused(.text("Sec-WebSocket-Key must be 16 bytes in base64", status: 400))
        }
        var headers: [(name: String, value: String)] = [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept),
        ]
        if let subprotocol = plan.subprotocol { headers.append(("Sec-WebSocket-Protocol", subprotocol)) }
        var compression: PerMessageDeflateParameters?
        let offers = request.headers.filter { $0.name.caseInsensitiveEquals("Sec-WebSocket-Extensions") }.map(\.value)
        if plan.acceptsCompression, !offers.isEmpty {
            guard let elements = try? WebSocketExtensionHeader.parse(offers) else {
                return .refused(.text("Sec-WebSocket-Extensions is malformed", status: 400))
            }
            if let answer = PerMessageDeflateParameters.answering(elements) {
                compression = answer.parameters
                headers.append(("Sec-WebSocket-Extensions", answer.header))
            }
        }
        var text = "HTTP/1.1 101 Switching Protocols\r\n"
        for (name, value) in headers + extraHeaders { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return .accepted(head: Data(text.utf8), compression: compression)
    }
}

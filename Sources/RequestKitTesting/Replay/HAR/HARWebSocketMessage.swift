import Foundation
import RequestKit

/// One message of a WebSocket connection, as browsers' HAR export keeps it in the handshake entry's
/// `_webSocketMessages`: `send` or `receive`, when (seconds since 1970), the opcode (1 text, 2 binary) and the data
/// (the text itself, or the bytes in base64).
struct HARWebSocketMessage: Codable, Sendable, Hashable {
    var type: String
    var time: Double
    var opcode: Int
    var data: String

    /// A message sent (`sent`) or received at `date`.
    init(_ message: WebSocketMessage, sent: Bool, at date: Date) {
        type = sent ? "send" : "receive"
        time = (date.timeIntervalSince1970 * 1000).rounded() / 1000
        switch message {
        case .text(let text):
            opcode = 1
            data = text
        case .binary(let bytes):
            opcode = 2
            data = bytes.base64EncodedString()
        }
    }

    /// Whether the client sent it.
    var isSent: Bool { type == "send" }

    /// The message it holds.
    ///
    /// - Throws: `RequestError` for an opcode other than text or binary, or binary data that is not base64.
    func message() throws(RequestError) -> WebSocketMessage {
        switch opcode {
        case 1: return .text(data)
        case 2:
            guard let bytes = Data(base64Encoded: data) else {
                throw ReplayFailure.error("a recorded binary WebSocket message is not base64: \(data.prefix(40))")
            }
            return .binary(bytes)
        default:
            throw ReplayFailure.error(
                "a recorded WebSocket message has opcode \(opcode); a cassette holds text (1) and binary (2) ones")
        }
    }
}

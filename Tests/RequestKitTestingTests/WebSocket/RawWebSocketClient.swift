import Foundation
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import RequestKitWebSocket

/// A WebSocket client written by hand over a ``RawHTTPConnection``, for TestServer's WebSocket tests: the upgrade
/// request built by ``WebSocketHandshake`` and its answer checked by it, then whole frames written and read as
/// bytes. What the frames mean is left to a client-side ``WebSocketConnectionStateMachine`` the test feeds.
struct RawWebSocketClient: Sendable {
    let connection: RawHTTPConnection
    /// The answer to the upgrade request.
    let answer: RawHTTPResponse
    /// What the handshake agreed on; nil when the server did not answer 101.
    let agreement: WebSocketHandshake.Agreement?

    /// Connects to `server` and sends the upgrade request for `path`.
    static func open(
        _ server: TestServer, path: String, subprotocols: [String] = [], compression: WebSocket.Compression? = nil,
        replacingFields: [(name: String, value: String?)] = []
    ) async throws -> RawWebSocketClient {
        let connection = try RawHTTPConnection(port: server.port)
        let handshake = WebSocketHandshake(subprotocols: subprotocols, compression: compression)
        var fields = handshake.headerFields.map { ($0.name, Optional($0.value)) }
        for (name, value) in replacingFields {
            fields.removeAll { $0.0.lowercased() == name.lowercased() }
            fields.append((name, value))
        }
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"
        for case let (name, value?) in fields { request += "\(name): \(value)\r\n" }
        try await connection.send(request + "\r\n")
        let answer = try await connection.readResponse()
        var headers = HTTPHeaders()
        for field in answer.headers { headers.add(field.name, field.value) }
        let agreement = answer.status == 101 ? try handshake.accept(status: 101, headers: headers) : nil
        return RawWebSocketClient(connection: connection, answer: answer, agreement: agreement)
    }

    /// Writes bytes as they are.
    func send(_ bytes: [UInt8]) async throws {
        try await connection.send(Data(bytes))
    }

    /// Reads one whole frame, head and payload, as bytes.
    func readFrame() async throws -> [UInt8] {
        var frame = Array(try await connection.read(count: 2))
        let isMasked = frame[1] & 0x80 != 0
        var length = Int(frame[1] & 0x7F)
        if length >= 126 {
            let extended = Array(try await connection.read(count: length == 126 ? 2 : 8))
            frame += extended
            length = extended.reduce(0) { $0 << 8 | Int($1) }
        }
        let rest = (isMasked ? 4 : 0) + length
        if rest > 0 { frame += Array(try await connection.read(count: rest)) }
        return frame
    }
}

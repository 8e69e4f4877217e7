#if canImport(CNghttp2)
import CNghttp2
import Foundation
import RequestKitModel
import RequestKitTestSupport
import Testing

@testable import RequestKitHTTP2

/// Tunnels opened with extended CONNECT (RFC 8441), driven without a socket against nghttp2's server session: what the
/// server's SETTINGS allow, the head that goes out, bytes both ways under flow control, and how a tunnel ends while
/// its connection goes on.
@Suite("HTTP/2 session: extended CONNECT tunnels")
struct HTTP2SessionTunnelTests {
    private static let enableConnectProtocol = (Int32(NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL.rawValue), UInt32(1))

    private static let tunnelHead = HTTP2RequestHead(
        connecting: "websocket", scheme: "https", authority: "chat.example.com", path: "/live?room=7",
        headers: [
            "Sec-WebSocket-Version": "13", "Sec-WebSocket-Protocol": "chat, superchat",
            "Sec-WebSocket-Extensions": "permessage-deflate", "Upgrade": "websocket", "Connection": "Upgrade",
            "Host": "chat.example.com",
        ])

    private static let getHead = HTTP2RequestHead(
        method: "GET", scheme: "https", authority: "chat.example.com", path: "/health", headers: [:])

    /// A client that has exchanged SETTINGS with a server that allows extended CONNECT (or not, `allowing: false`).
    private static func connected(allowing: Bool = true) throws -> (HTTP2Session, HTTP2ServerPeer) {
        let client = try HTTP2Session(settings: HTTP2Settings())
        let server = HTTP2ServerPeer(settings: allowing ? [enableConnectProtocol] : [])
        _ = server.exchange(with: client)
        return (client, server)
    }

    /// A client whose tunnel the server accepted with 200; the accepting head is checked.
    private static func acceptedTunnel() throws -> (HTTP2Session, HTTP2ServerPeer, Int32) {
        let (client, server) = try connected()
        let stream = try client.openTunnel(tunnelHead)
        _ = server.exchange(with: client)
        server.accept(stream)
        let outputs = server.exchange(with: client)
        #expect(outputs == [.head(stream: stream, status: 200, headers: [:])])
        return (client, server, stream)
    }

    /// The bytes of the `.data` outputs of `stream`, joined.
    private static func data(_ outputs: [HTTP2Session.Output], stream: Int32) -> Data {
        outputs.reduce(into: Data()) { bytes, output in
            if case .data(stream, let piece) = output { bytes.append(piece) }
        }
    }

    /// Asserts that an ordinary GET still gets its answer on `client`'s connection.
    private static func expectConnectionServesRequests(_ client: HTTP2Session, _ server: HTTP2ServerPeer) throws {
        let stream = try client.request(getHead, body: nil)
        _ = server.exchange(with: client)
        server.respond(stream, status: 200, body: Data("ok".utf8))
        let outputs = server.exchange(with: client)
        #expect(
            outputs == [
                .head(stream: stream, status: 200, headers: [:]), .data(stream: stream, Data("ok".utf8)),
                .end(stream: stream),
            ])
    }

    // MARK: What the server allows

    @Test("A server that sends SETTINGS_ENABLE_CONNECT_PROTOCOL = 1 allows tunnels")
    func settingAllows() throws {
        let (client, _) = try Self.connected()
        #expect(client.allowsExtendedConnect)
    }

    @Test("Without the setting, or before the server's SETTINGS, a tunnel is refused as not allowed")
    func withoutSettingRefused() throws {
        let fresh = try HTTP2Session(settings: HTTP2Settings())
        #expect(!fresh.allowsExtendedConnect)
        #expect(throws: HTTP2Session.Refusal.extendedConnectNotAllowed) { _ = try fresh.openTunnel(Self.tunnelHead) }
        let (client, server) = try Self.connected(allowing: false)
        #expect(client.hasServerSettings)
        #expect(!client.allowsExtendedConnect)
        #expect(throws: HTTP2Session.Refusal.extendedConnectNotAllowed) { _ = try client.openTunnel(Self.tunnelHead) }
        #expect(client.openStreamCount == 0)
        try Self.expectConnectionServesRequests(client, server)
    }

    // MARK: The head

    @Test("The tunnel's head is CONNECT with :protocol and the WebSocket fields, without HTTP/1.1 upgrade fields")
    func tunnelHeadFields() throws {
        let (client, server) = try Self.connected()
        let stream = try client.openTunnel(Self.tunnelHead)
        _ = server.exchange(with: client)
        #expect(
            server.requests[stream]?.fields == [
                HTTPHeader(name: ":method", value: "CONNECT"), HTTPHeader(name: ":protocol", value: "websocket"),
                HTTPHeader(name: ":scheme", value: "https"), HTTPHeader(name: ":authority", value: "chat.example.com"),
                HTTPHeader(name: ":path", value: "/live?room=7"),
                HTTPHeader(name: "sec-websocket-version", value: "13"),
                HTTPHeader(name: "sec-websocket-protocol", value: "chat, superchat"),
                HTTPHeader(name: "sec-websocket-extensions", value: "permessage-deflate"),
            ])
        #expect(server.requests[stream]?.ended == false)
        #expect(client.openStreamCount == 1)
    }

    // MARK: Bytes both ways

    @Test("Bytes go both ways over an accepted tunnel, in order, in small pieces and beyond the windows")
    func bytesBothWays() throws {
        let (client, server, stream) = try Self.acceptedTunnel()
        // A masked WebSocket text frame "Hello", then 200,000 bytes: more than the 65,535-byte initial windows.
        let hello = Data([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        let large = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 31) })
        client.send(hello, on: stream)
        client.send(large, on: stream)
        _ = server.exchange(with: client)
        #expect(server.requests[stream]?.body == hello + large)
        #expect(server.requests[stream]?.ended == false)
        #expect(client.unsentTunnelBytes(on: stream) == 0)

        var received = Data()
        server.send(large, on: stream)
        var outputs = server.exchange(with: client)
        while true {
            let piece = Self.data(outputs, stream: stream)
            guard !piece.isEmpty else { break }
            received += piece
            // The reader gives the bytes back: the windows open and the rest comes.
            client.consumed(piece.count, on: stream)
            outputs = server.exchange(with: client)
        }
        #expect(received == large)
        #expect(client.openStreamCount == 1)
    }

    @Test("A tunnel closes when both halves end: the client's END_STREAM and the server's, in either order")
    func bothHalvesEnd() throws {
        let (client, server, stream) = try Self.acceptedTunnel()
        let close = Data([0x88, 0x82, 0x01, 0x02, 0x03, 0x04, 0x02, 0xEA])
        client.send(close, on: stream)
        client.finishSending(on: stream)
        client.send(Data("after the end".utf8), on: stream)
        _ = server.exchange(with: client)
        #expect(server.requests[stream]?.body == close)
        #expect(server.requests[stream]?.ended == true)
        server.send(Data([0x88, 0x02, 0x03, 0xE8]), on: stream, endsStream: true)
        let outputs = server.exchange(with: client)
        #expect(outputs == [.data(stream: stream, Data([0x88, 0x02, 0x03, 0xE8])), .end(stream: stream)])
        #expect(client.openStreamCount == 0)

        let (second, secondServer, secondStream) = try Self.acceptedTunnel()
        secondServer.send(Data([0x88, 0x00]), on: secondStream, endsStream: true)
        #expect(
            secondServer.exchange(with: second) == [
                .data(stream: secondStream, Data([0x88, 0x00])), .end(stream: secondStream),
            ])
        second.send(Data([0x88, 0x80, 0, 0, 0, 0]), on: secondStream)
        second.finishSending(on: secondStream)
        _ = secondServer.exchange(with: second)
        #expect(secondServer.requests[secondStream]?.body == Data([0x88, 0x80, 0, 0, 0, 0]))
        #expect(secondServer.requests[secondStream]?.ended == true)
        try Self.expectConnectionServesRequests(second, secondServer)
    }

    // MARK: Endings

    @Test("A refused tunnel reports its status and body, its stream ends both ways and the connection goes on")
    func refusedTunnel() throws {
        let (client, server) = try Self.connected()
        let stream = try client.openTunnel(Self.tunnelHead)
        _ = server.exchange(with: client)
        server.respond(
            stream, status: 403, headers: [HTTPHeader(name: "content-type", value: "text/plain")],
            body: Data("no chat for you".utf8))
        let outputs = server.exchange(with: client)
        #expect(
            outputs == [
                .head(stream: stream, status: 403, headers: ["content-type": "text/plain"]),
                .data(stream: stream, Data("no chat for you".utf8)), .end(stream: stream),
            ])
        #expect(server.requests[stream]?.ended == true)
        #expect(client.openStreamCount == 0)
        try Self.expectConnectionServesRequests(client, server)
    }

    @Test("Cancelling a tunnel resets its stream with CANCEL, and the connection goes on")
    func cancelledTunnel() throws {
        let (client, server, stream) = try Self.acceptedTunnel()
        client.send(Data([0x81, 0x80, 0, 0, 0, 0]), on: stream)
        client.cancel(stream)
        _ = server.exchange(with: client)
        #expect(server.requests[stream]?.resetCode == HTTP2ErrorCode.cancel.rawValue)
        #expect(client.openStreamCount == 0)
        #expect(client.unsentTunnelBytes(on: stream) == 0)
        try Self.expectConnectionServesRequests(client, server)
    }

    @Test("A tunnel the server resets fails with the server's code; the connection goes on")
    func serverResetsTunnel() throws {
        let (client, server, stream) = try Self.acceptedTunnel()
        server.reset(stream, code: .internalError)
        #expect(server.exchange(with: client) == [.failed(stream: stream, .reset(.internalError))])
        #expect(client.openStreamCount == 0)
        try Self.expectConnectionServesRequests(client, server)
    }

    @Test("An open tunnel fails with the connection's loss when the connection ends")
    func connectionEndsUnderTunnel() throws {
        let (client, _, stream) = try Self.acceptedTunnel()
        #expect(client.receivedEnd() == [.failed(stream: stream, .connectionLost(.closed)), .closed(.closed)])
        #expect(client.unsentTunnelBytes(on: stream) == 0)
    }

    // MARK: The outbound buffer

    @Test("The outbound half waits while empty, gives what fits, and ends once finished and drained")
    func outboundReads() {
        var outbound = HTTP2TunnelOutbound()
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(buffer.withUnsafeMutableBufferPointer { outbound.read(into: $0) } == nil)
        outbound.append(Data([1, 2, 3, 4, 5, 6]))
        #expect(buffer.withUnsafeMutableBufferPointer { outbound.read(into: $0) }.map { [$0.count] } == [4])
        #expect(buffer == [1, 2, 3, 4])
        #expect(outbound.unsentCount == 2)
        outbound.isFinished = true
        let last = buffer.withUnsafeMutableBufferPointer { outbound.read(into: $0) }
        #expect(last?.count == 2)
        #expect(last?.isLast == true)
        #expect(buffer.prefix(2) == [5, 6])
        let end = buffer.withUnsafeMutableBufferPointer { outbound.read(into: $0) }
        #expect(end?.count == 0)
        #expect(end?.isLast == true)
    }
}
#endif

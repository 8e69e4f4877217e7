#if canImport(CNghttp2)
import CNghttp2
import Foundation
import RequestKitHTTP2
import RequestKitModel
import RequestKitSockets
import RequestKitTestSupport
import Testing

@testable import RequestKitNativeTransport

/// The byte stream a WebSocket runs on over HTTP/2 (RFC 8441), without a socket: its bytes go to nghttp2's server
/// session in memory and back. Opening waits for the server's SETTINGS, sends the extended CONNECT only when they
/// allow it, and reads the answer; then bytes go both ways under the stream's flow control.
@Suite("HTTP/2 tunnel byte stream")
struct HTTP2TunnelByteStreamTests {
    /// A socket in memory: what the client writes waits for the test, and what the test delivers waits to be read.
    private final class Pipe: ByteStream {
        var written: [UInt8] = []
        var toRead: [UInt8] = []
        var isClosed = false
        /// Whether the peer closed the socket once `toRead` is read.
        var isAtEnd = false

        var descriptor: Int32 { 7 }
        func handshake() throws -> ByteStreamResult { .transferred(0) }
        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> ByteStreamResult {
            guard !toRead.isEmpty else { return isAtEnd ? .endOfStream : .wouldBlock(.readable) }
            let count = min(buffer.count, toRead.count)
            toRead.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            toRead.removeFirst(count)
            return .transferred(count)
        }
        func write(_ bytes: UnsafeRawBufferPointer) throws -> ByteStreamResult {
            written.append(contentsOf: bytes)
            return .transferred(bytes.count)
        }
        var hasBufferedBytes: Bool { false }
        var isReadableNow: Bool { !toRead.isEmpty }
        var isEndUnconfirmed: Bool { false }
        func close() { isClosed = true }
    }

    private static let enableConnectProtocol = (Int32(NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL.rawValue), UInt32(1))
    private static let initialWindow = Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue)
    private static let head = HTTP2RequestHead(
        connecting: "websocket", scheme: "https", authority: "127.0.0.1:8443", path: "/echo",
        headers: ["Sec-WebSocket-Version": "13"])

    /// Carries the client's bytes to `server` and the server's answer back.
    private static func deliver(_ pipe: Pipe, _ server: HTTP2ServerPeer) {
        server.receive(pipe.written)
        pipe.written = []
        pipe.toRead += server.outgoing()
    }

    /// A tunnel the server accepted with 200 (its SETTINGS first: extended CONNECT allowed, and `settings`).
    private static func opened(
        settings: [(Int32, UInt32)] = []
    ) throws -> (HTTP2TunnelByteStream, Pipe, HTTP2ServerPeer) {
        let pipe = Pipe()
        let server = HTTP2ServerPeer(settings: [enableConnectProtocol] + settings)
        let tunnel = try HTTP2TunnelByteStream(over: pipe, head: head)
        #expect(try tunnel.open() == .waiting)
        deliver(pipe, server)
        #expect(try tunnel.open() == .waiting)
        deliver(pipe, server)
        server.accept(1, headers: [HTTPHeader(name: "sec-websocket-protocol", value: "chat")])
        deliver(pipe, server)
        #expect(
            try tunnel.open() == .answered(status: 200, headers: ["sec-websocket-protocol": "chat"], body: Data()))
        return (tunnel, pipe, server)
    }

    @Test("The extended CONNECT goes out only after the server's SETTINGS allow it, with :protocol websocket")
    func opensAfterSettings() throws {
        let (_, _, server) = try Self.opened()
        let fields = try #require(server.requests[1]?.fields)
        #expect(fields.first { $0.name == ":method" }?.value == "CONNECT")
        #expect(fields.first { $0.name == ":protocol" }?.value == "websocket")
        #expect(fields.first { $0.name == ":path" }?.value == "/echo")
        #expect(server.requests[1]?.ended == false)
    }

    @Test("A server whose SETTINGS do not allow extended CONNECT gets no stream: the opening says notAllowed")
    func notAllowed() throws {
        let pipe = Pipe()
        let server = HTTP2ServerPeer()
        let tunnel = try HTTP2TunnelByteStream(over: pipe, head: Self.head)
        #expect(try tunnel.open() == .waiting)
        Self.deliver(pipe, server)
        #expect(try tunnel.open() == .notAllowed)
        Self.deliver(pipe, server)
        // Stream 0 holds the connection's frames; no stream was opened.
        #expect(server.requests.keys.filter { $0 != 0 }.isEmpty)
    }

    @Test("A refusal comes with the body the server sent, once its stream ends")
    func refusal() throws {
        let pipe = Pipe()
        let server = HTTP2ServerPeer(settings: [Self.enableConnectProtocol])
        let tunnel = try HTTP2TunnelByteStream(over: pipe, head: Self.head)
        _ = try tunnel.open()
        Self.deliver(pipe, server)
        _ = try tunnel.open()
        Self.deliver(pipe, server)
        server.respond(1, status: 403, body: Data("go away".utf8))
        Self.deliver(pipe, server)
        #expect(try tunnel.open() == .answered(status: 403, headers: [:], body: Data("go away".utf8)))
    }

    @Test("Bytes go both ways; the server's end of the stream is the end of the bytes")
    func bytesBothWays() throws {
        let (tunnel, pipe, server) = try Self.opened()
        let frame: [UInt8] = [0x81, 0x82, 1, 2, 3, 4, 0x69 ^ 1, 0x21 ^ 2]
        #expect(try frame.withUnsafeBytes { try tunnel.write($0) } == .transferred(frame.count))
        Self.deliver(pipe, server)
        #expect(server.requests[1]?.body == Data(frame))
        server.send(Data([0x81, 0x02, 0x6f, 0x6b]), on: 1, endsStream: true)
        Self.deliver(pipe, server)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
        defer { buffer.deallocate() }
        #expect(try tunnel.read(into: buffer) == .transferred(4))
        #expect(Array(buffer[0..<4]) == [0x81, 0x02, 0x6f, 0x6b])
        #expect(try tunnel.read(into: buffer) == .endOfStream)
    }

    @Test("A reset of the stream after bytes came: the bytes are read first, then the reset is a RequestError")
    func resetAfterBytes() throws {
        let (tunnel, pipe, server) = try Self.opened()
        server.send(Data([0x81, 0x01, 0x61]), on: 1)
        Self.deliver(pipe, server)
        server.reset(1, code: .internalError)
        Self.deliver(pipe, server)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
        defer { buffer.deallocate() }
        #expect(try tunnel.read(into: buffer) == .transferred(3))
        let error = try #require(throws: RequestError.self) { try tunnel.read(into: buffer) }
        #expect("\(error)".contains("the server reset the stream"))
        #expect(throws: RequestError.self) { try [0x88, 0x80].withUnsafeBytes { try tunnel.write($0) } }
    }

    @Test("The connection's end before the stream's is a RequestError, not an end of the bytes")
    func connectionEndsFirst() throws {
        let (tunnel, pipe, _) = try Self.opened()
        pipe.isAtEnd = true
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
        defer { buffer.deallocate() }
        #expect(throws: RequestError.self) { try tunnel.read(into: buffer) }
    }

    @Test("Writes wait for the stream's window once 256 KiB are unsent, and go on when the server opens it")
    func writesWaitForTheWindow() throws {
        // The server's window for the stream is 16 KiB; it opens again as the server reads.
        let (tunnel, pipe, server) = try Self.opened(settings: [(Self.initialWindow, 16_384)])
        let chunk = [UInt8](repeating: 0x42, count: 32 * 1024)
        var accepted = 0
        var result = ByteStreamResult.transferred(0)
        for _ in 0..<16 {
            result = try chunk.withUnsafeBytes { try tunnel.write($0) }
            guard case .transferred(let count) = result else { break }
            accepted += count
        }
        // 16 KiB go at once (the window); eight chunks leave 240 KiB unsent, a ninth 272 KiB, and the tenth waits.
        #expect(HTTP2TunnelByteStream.maxUnsentBytes == 256 * 1024)
        #expect(accepted == 9 * chunk.count)
        #expect(result == .wouldBlock(.readable))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 1)
        defer { buffer.deallocate() }
        var received = 0
        for _ in 0..<200 where received < accepted {
            Self.deliver(pipe, server)
            received = server.requests[1]?.body.count ?? 0
            // Reading what the server sent (its WINDOW_UPDATE) lets the unsent bytes go.
            #expect(try tunnel.read(into: buffer) == .wouldBlock(.readable))
        }
        #expect(received == accepted)
        #expect(try chunk.withUnsafeBytes { try tunnel.write($0) } == .transferred(chunk.count))
    }

    @Test("The server's bytes open the client's window only as they are read: 3 MiB arrive through a 1 MiB window")
    func readsOpenTheWindow() throws {
        let (tunnel, pipe, server) = try Self.opened()
        let sent = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        server.send(sent, on: 1, endsStream: true)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { buffer.deallocate() }
        var received = Data()
        var ended = false
        for _ in 0..<1000 where !ended {
            Self.deliver(pipe, server)
            // Without reads, no more than the stream's window (1 MiB) is ever in flight.
            #expect(pipe.toRead.count <= (1 << 20) + 64 * 1024)
            while true {
                let result = try tunnel.read(into: buffer)
                if case .transferred(let count) = result {
                    received.append(contentsOf: buffer[0..<count])
                    continue
                }
                ended = result == .endOfStream
                break
            }
        }
        #expect(ended)
        #expect(received == sent)
    }
}
#endif

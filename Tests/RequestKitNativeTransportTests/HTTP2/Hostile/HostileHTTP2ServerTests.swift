#if canImport(CNghttp2) && os(Linux)
import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitNativeTransport
import RequestKitTestSupport
import Testing

/// Servers that break HTTP/2 on purpose, through the whole transport over a real socket: each ends in a typed error
/// or a retry, never a hang, and the client says why on the wire.
@Suite("HTTP/2 against hostile servers, end to end", .wallClock)
struct HostileHTTP2ServerTests {
    typealias Frame = HTTP2FrameBytes

    /// HTTP/2 error codes (RFC 9113 §7).
    static let protocolError: UInt32 = 0x1
    static let internalError: UInt32 = 0x2
    static let frameSizeError: UInt32 = 0x6
    static let cancel: UInt32 = 0x8

    /// A GET over h2c with prior knowledge; `Timeout(10)` bounds a client that would wait for ever.
    static func get(_ server: ScriptedHTTP2Server, _ path: String = "/") async throws -> Response {
        try await Request {
            Url("http://127.0.0.1:\(server.port)\(path)")
            Using(NativeTransport { $0.http2 = .priorKnowledge })
            Timeout(10)
        }.send()
    }

    /// `:status: 200`, then `ok` ending the stream.
    static func answer(on stream: UInt32) -> [UInt8] {
        Frame.headersFrame(stream: stream, block: Frame.status200)
            + Frame.frame(Frame.data, flags: Frame.endStream, stream: stream, payload: Array("ok".utf8))
    }

    @Test("A DATA frame larger than the allowed 16,384 bytes ends the connection with FRAME_SIZE_ERROR")
    func oversizedFrame() async throws {
        let server = try ScriptedHTTP2Server { connection, _ in
            guard let stream = connection.nextRequest() else { return }
            connection.send(
                Frame.headersFrame(stream: stream, block: Frame.status200)
                    + Frame.frame(Frame.data, stream: stream, payload: [UInt8](repeating: 0x61, count: 20_000)))
            connection.readUntilClosed()
        }
        defer { server.stop() }
        let error = try await #require(throws: RequestError.self) { try await Self.get(server) }
        #expect(error.kind == .transport, "\(error)")
        #expect(await server.recorded { !$0.goAwayCodes.isEmpty }.goAwayCodes == [Self.frameSizeError])
    }

    @Test("A header block spread over endless CONTINUATION frames ends the connection, bounded, with a typed error")
    func continuationFlood() async throws {
        let server = try ScriptedHTTP2Server { connection, _ in
            guard let stream = connection.nextRequest() else { return }
            // What the client says when it gives up is read while the flood is still being written.
            connection.readInBackground()
            connection.send(Frame.frame(Frame.headers, stream: stream, payload: Frame.status200))
            connection.flood(
                Frame.frame(Frame.continuation, stream: stream, payload: Frame.literal("x-a", "y")), count: 20_000)
        }
        defer { server.stop() }
        let error = try await #require(throws: RequestError.self) { try await Self.get(server) }
        #expect(error.kind == .transport, "\(error)")
        #expect(error.description.contains("PROTOCOL_ERROR"), "\(error)")
        #expect(error.description.contains("CONTINUATION"), "\(error)")
        #expect(
            await server.recorded { !$0.goAwayCodes.isEmpty }.goAwayCodes == [Self.protocolError],
            "\(server.recorded) \(error)")
        #expect(server.recorded.connections == 1)
    }

    @Test("A PING flood whose acknowledgements the server never reads ends the connection with a typed error")
    func pingFlood() async throws {
        try await Self.expectFlooded { connection in
            connection.flood(Frame.frame(Frame.ping, payload: [UInt8](repeating: 0, count: 8)), count: 1_000_000)
        }
    }

    /// A request to a server that answers it with `flood` fails as flooded, on the one connection it opened.
    private static func expectFlooded(
        sourceLocation: SourceLocation = #_sourceLocation,
        by flood: @escaping @Sendable (ScriptedHTTP2Server.Connection) -> Void
    ) async throws {
        let server = try ScriptedHTTP2Server { connection, _ in
            guard connection.nextRequest() != nil else { return }
            flood(connection)
        }
        defer { server.stop() }
        let error = try await #require(throws: RequestError.self, sourceLocation: sourceLocation) {
            try await get(server)
        }
        #expect(error.kind == .transport, "\(error)", sourceLocation: sourceLocation)
        #expect(error.description.contains("flooded"), "\(error)", sourceLocation: sourceLocation)
        #expect(server.recorded.connections == 1, sourceLocation: sourceLocation)
    }

    @Test(
        "A PING flood in bursts small enough for each read to answer, whose acknowledgements the server never reads, ends the connection once the socket takes no more of them, rather than piling them up in memory"
    )
    func pingFloodInBursts() async throws {
        try await Self.expectFlooded { connection in
            let ping = Frame.frame(Frame.ping, payload: [UInt8](repeating: 0, count: 8))
            // 100 at a time, so that each read answers fewer than the limit of unwritten acknowledgements; 8.5 MB
            // of them in all, more than the sockets hold.
            let burst = [UInt8]([[UInt8]](repeating: ping, count: 100).joined())
            for _ in 0..<5000 {
                guard connection.send(burst) else { return }
                usleep(1000)
            }
        }
    }

    @Test("A SETTINGS flood whose acknowledgements the server never reads ends the connection with a typed error")
    func settingsFlood() async throws {
        try await Self.expectFlooded { connection in connection.flood(Frame.settingsFrame(), count: 1_000_000) }
    }

    @Test("A response header with a CR LF in its value resets the stream with PROTOCOL_ERROR; the connection goes on")
    func forbiddenBytes() async throws {
        let server = try ScriptedHTTP2Server { connection, _ in
            guard let first = connection.nextRequest() else { return }
            connection.send(
                Frame.headersFrame(
                    stream: first, block: Frame.status200 + Frame.literal("x-bad", "a\r\nset-cookie: b"),
                    endStream: true))
            guard let second = connection.nextRequest() else { return }
            connection.send(Self.answer(on: second))
            connection.readUntilClosed()
        }
        defer { server.stop() }
        let transport = NativeTransport { $0.http2 = .priorKnowledge }
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url("http://127.0.0.1:\(server.port)/bad"); Using(transport); Timeout(10)
            }.send()
        }
        #expect(error.kind == .transport, "\(error)")
        let next = try await Request {
            Url("http://127.0.0.1:\(server.port)/next"); Using(transport)
        }.send()
        #expect(next.body == Data("ok".utf8))
        #expect(server.recorded.resetCodes == [Self.protocolError])
        #expect(server.recorded.connections == 1)
    }

    @Test(
        "An answer on a stream that already ended (a stream id gone backwards) is not taken as another's: the waiting request times out and is reset"
    )
    func backwardsStream() async throws {
        let server = try ScriptedHTTP2Server { connection, _ in
            guard let first = connection.nextRequest() else { return }
            connection.send(Self.answer(on: first))
            guard connection.nextRequest() != nil else { return }
            connection.send(Self.answer(on: first))
            connection.readUntilClosed()
        }
        defer { server.stop() }
        let transport = NativeTransport { $0.http2 = .priorKnowledge }
        let first = try await Request {
            Url("http://127.0.0.1:\(server.port)/1"); Using(transport)
        }.send()
        #expect(first.body == Data("ok".utf8))
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url("http://127.0.0.1:\(server.port)/2"); Using(transport); Timeout(1)
            }.send()
        }
        #expect(error.kind == .timedOut, "\(error)")
        #expect(await server.recorded { !$0.resetCodes.isEmpty }.resetCodes == [Self.cancel])
    }

    @Test(
        "HEADERS on a stream the client never opened (its next odd id, or an even one) ends the connection with PROTOCOL_ERROR",
        arguments: [UInt32(2), 3])
    func headersOnUnopenedStream(offset: UInt32) async throws {
        let server = try ScriptedHTTP2Server { connection, _ in
            guard let stream = connection.nextRequest() else { return }
            connection.send(Frame.headersFrame(stream: stream + offset - 1, block: Frame.status200, endStream: true))
            connection.readUntilClosed()
        }
        defer { server.stop() }
        let error = try await #require(throws: RequestError.self) { try await Self.get(server) }
        #expect(error.kind == .transport, "\(error)")
        #expect(error.description.contains("PROTOCOL_ERROR"), "\(error)")
        #expect(await server.recorded { !$0.goAwayCodes.isEmpty }.goAwayCodes == [Self.protocolError])
    }

    @Test("GOAWAY naming the request's stream, then the end: it was processed, so it fails and is not sent again")
    func goAwayAfterProcessing() async throws {
        let server = try ScriptedHTTP2Server { connection, _ in
            guard let stream = connection.nextRequest() else { return }
            connection.send(
                Frame.headersFrame(stream: stream, block: Frame.status200)
                    + Frame.frame(Frame.goAway, payload: [0, 0, 0, UInt8(stream), 0, 0, 0, 0]))
            // The end of the connection, with what the client sent (its body) read, so that it ends with a FIN.
            connection.endWriting()
            connection.readUntilClosed()
        }
        defer { server.stop() }
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url("http://127.0.0.1:\(server.port)/"); Method(.post); Body(Data("once".utf8))
                Using(NativeTransport { $0.http2 = .priorKnowledge }); Timeout(10)
            }.send()
        }
        #expect(error.connectionFailure == .connectionReset, "\(error)")
        #expect(error.description.contains("closed before the response was whole"), "\(error)")
        #expect(server.recorded.requests == 1)
        #expect(server.recorded.connections == 1)
    }

    @Test("GOAWAY below the request's stream: it was not processed, so it goes to a new connection, POST or not")
    func goAwayBeforeProcessing() async throws {
        let server = try ScriptedHTTP2Server { connection, index in
            guard let stream = connection.nextRequest() else { return }
            if index == 1 {
                connection.send(Frame.frame(Frame.goAway, payload: [0, 0, 0, 0, 0, 0, 0, 0]))
                connection.readUntilClosed()
            } else {
                connection.send(Self.answer(on: stream))
                connection.readUntilClosed()
            }
        }
        defer { server.stop() }
        let response = try await Request {
            Url("http://127.0.0.1:\(server.port)/"); Method(.post); Body(Data("once".utf8))
            Using(NativeTransport { $0.http2 = .priorKnowledge }); Timeout(10)
        }.send()
        #expect(response.body == Data("ok".utf8))
        #expect(server.recorded.connections == 2)
    }

    @Test("REFUSED_STREAM: the request goes again, and the second answer is the caller's")
    func refusedStream() async throws {
        let server = try ScriptedHTTP2Server { connection, _ in
            guard let first = connection.nextRequest() else { return }
            connection.send(Frame.frame(Frame.rstStream, stream: first, payload: [0, 0, 0, 0x7]))
            guard let second = connection.nextRequest() else { return }
            connection.send(Self.answer(on: second))
            connection.readUntilClosed()
        }
        defer { server.stop() }
        let response = try await Self.get(server)
        #expect(response.body == Data("ok".utf8))
        #expect(server.recorded.requests == 2)
    }

    @Test("A window that never opens holds an upload back until its idle timeout fires, and its stream is reset")
    func windowNeverOpens() async throws {
        // SETTINGS_INITIAL_WINDOW_SIZE 0, and no WINDOW_UPDATE ever.
        let server = try ScriptedHTTP2Server(settings: [(0x4, 0)]) { connection, _ in
            guard connection.nextRequest() != nil else { return }
            connection.readUntilClosed()
        }
        defer { server.stop() }
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url("http://127.0.0.1:\(server.port)/upload"); Method(.post); Body(Data(count: 1000))
                // Long enough for a busy machine to connect and send the headers before the timeout can fire.
                Using(NativeTransport { $0.http2 = .priorKnowledge }); Timeout(20)
            }.send()
        }
        #expect(error.kind == .timedOut, "\(error)")
        #expect(await server.recorded { !$0.resetCodes.isEmpty }.resetCodes == [Self.cancel])
        #expect(server.recorded.requests == 1)
    }

    @Test("An HPACK bomb (one indexed field repeated past the header list limit) resets its stream with a typed error")
    func hpackBomb() async throws {
        let server = try ScriptedHTTP2Server { connection, _ in
            guard let stream = connection.nextRequest() else { return }
            // A 100-byte value entered in the dynamic table once, then referred to 3,000 times by one byte each:
            // about 400 KB of header list from 3 KB of block.
            let name = Array("x-bomb".utf8)
            let value = [UInt8](repeating: 0x61, count: 100)
            var block = Frame.status200 + [0x40, UInt8(name.count)] + name + [UInt8(value.count)] + value
            block += [UInt8](repeating: 0xBE, count: 3000)
            connection.send(Frame.headersFrame(stream: stream, block: block, endStream: true))
            connection.readUntilClosed()
        }
        defer { server.stop() }
        let error = try await #require(throws: RequestError.self) { try await Self.get(server) }
        #expect(error.kind == .transport, "\(error)")
        #expect(error.description.contains("header list"), "\(error)")
        // nghttp2 resets a stream whose header its callback refused with INTERNAL_ERROR.
        #expect(await server.recorded { !$0.resetCodes.isEmpty }.resetCodes == [Self.internalError])
        #expect(server.recorded.goAwayCodes.isEmpty)
    }

    @Test("RST_STREAM with INTERNAL_ERROR after the head fails the request naming the code")
    func resetAfterHead() async throws {
        let server = try ScriptedHTTP2Server { connection, _ in
            guard let stream = connection.nextRequest() else { return }
            connection.send(
                Frame.headersFrame(stream: stream, block: Frame.status200)
                    + Frame.frame(Frame.rstStream, stream: stream, payload: [0, 0, 0, 0x2]))
            connection.readUntilClosed()
        }
        defer { server.stop() }
        let error = try await #require(throws: RequestError.self) { try await Self.get(server) }
        #expect(error.kind == .transport, "\(error)")
        #expect(error.description.contains("INTERNAL_ERROR"), "\(error)")
        #expect(server.recorded.requests == 1)
    }
}
#endif

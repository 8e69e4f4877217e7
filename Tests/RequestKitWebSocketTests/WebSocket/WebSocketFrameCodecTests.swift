import Foundation
import RequestKitModel
import RequestKitTestSupport
import Testing

@testable import RequestKitWebSocket

/// The frame codec byte for byte: RFC 6455's own examples (§5.7) both ways, the length encodings, masking, and each
/// framing rule broken, reported as the first broken byte arrives.
@Suite("WebSocket frame codec")
struct WebSocketFrameCodecTests {
    static let rfcKey = WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D)

    static func encode(_ head: WebSocketFrameHead, _ payload: [UInt8]) -> [UInt8] {
        var output = Data()
        WebSocketFrameEncoder.append(head, payload: payload, to: &output)
        return Array(output)
    }

    @Test("RFC 6455 §5.7: a single-frame unmasked text message")
    func unmaskedText() {
        let bytes = Self.encode(WebSocketFrameHead(opcode: .text, payloadLength: 5), Array("Hello".utf8))
        #expect(bytes == [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
    }

    @Test("RFC 6455 §5.7: a single-frame masked text message")
    func maskedText() {
        let head = WebSocketFrameHead(opcode: .text, payloadLength: 5, maskingKey: Self.rfcKey)
        #expect(
            Self.encode(head, Array("Hello".utf8)) == [
                0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58,
            ])
    }

    @Test("RFC 6455 §5.7: a fragmented unmasked text message")
    func fragmentedText() {
        let first = Self.encode(WebSocketFrameHead(isFinal: false, opcode: .text, payloadLength: 3), Array("Hel".utf8))
        let second = Self.encode(WebSocketFrameHead(opcode: .continuation, payloadLength: 2), Array("lo".utf8))
        #expect(first == [0x01, 0x03, 0x48, 0x65, 0x6c])
        #expect(second == [0x80, 0x02, 0x6c, 0x6f])
    }

    @Test("RFC 6455 §5.7: an unmasked ping and a masked pong")
    func pingAndPong() {
        #expect(
            Self.encode(WebSocketFrameHead(opcode: .ping, payloadLength: 5), Array("Hello".utf8)) == [
                0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f,
            ])
        let pong = WebSocketFrameHead(opcode: .pong, payloadLength: 5, maskingKey: Self.rfcKey)
        #expect(
            Self.encode(pong, Array("Hello".utf8)) == [
                0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58,
            ])
    }

    @Test("RFC 6455 §5.7: 256 bytes take a 16-bit length, 64 KiB a 64-bit one")
    func extendedLengths() {
        let small = Self.encode(
            WebSocketFrameHead(opcode: .binary, payloadLength: 256), [UInt8](repeating: 7, count: 256))
        #expect(Array(small.prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
        #expect(small.count == 260)
        let large = Self.encode(
            WebSocketFrameHead(opcode: .binary, payloadLength: 65536), [UInt8](repeating: 7, count: 65536))
        #expect(Array(large.prefix(10)) == [0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00])
        #expect(large.count == 65546)
        #expect(WebSocketFrameHead(opcode: .binary, payloadLength: 125).encodedCount == 2)
        #expect(WebSocketFrameHead(opcode: .binary, payloadLength: 126).encodedCount == 4)
        #expect(WebSocketFrameHead(opcode: .binary, payloadLength: 65535).encodedCount == 4)
        #expect(WebSocketFrameHead(opcode: .binary, payloadLength: 65536, maskingKey: Self.rfcKey).encodedCount == 14)
    }

    @Test("RFC 6455 §5.7's frames decode to their heads and payloads")
    func decodesRFCExamples() {
        var client = WebSocketFrameDecoder(role: .client, maxFrameBytes: 1 << 20)
        client.append([0x01, 0x03, 0x48, 0x65, 0x6c, 0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x80, 0x02, 0x6c, 0x6f])
        let decoded = client.drain()
        #expect(decoded.violation == nil)
        #expect(
            decoded.pieces == [
                .dataHead(WebSocketFrameHead(isFinal: false, opcode: .text, payloadLength: 3)),
                .payload(Data("Hel".utf8), isFrameEnd: true),
                .control(WebSocketFrameHead(opcode: .ping, payloadLength: 5), Data("Hello".utf8)),
                .dataHead(WebSocketFrameHead(opcode: .continuation, payloadLength: 2)),
                .payload(Data("lo".utf8), isFrameEnd: true),
            ])
        var server = WebSocketFrameDecoder(role: .server, maxFrameBytes: 1 << 20)
        server.append([0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
        #expect(
            server.drain().pieces == [
                .dataHead(WebSocketFrameHead(opcode: .text, payloadLength: 5, maskingKey: Self.rfcKey)),
                .payload(Data("Hello".utf8), isFrameEnd: true),
            ])
    }

    @Test("a frame fed one byte at a time comes out as its head and one piece per payload byte, unmasked across them")
    func decodesByteByByte() {
        var decoder = WebSocketFrameDecoder(role: .server, maxFrameBytes: 1 << 20)
        var pieces: [WebSocketFrameDecoder.Piece] = []
        for byte in [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58] as [UInt8] {
            decoder.append([byte])
            pieces += decoder.drain().pieces
        }
        let payload = pieces.dropFirst().compactMap { piece -> UInt8? in
            if case .payload(let data, _) = piece { return data.first }
            return nil
        }
        #expect(pieces.count == 6)
        #expect(String(decoding: payload, as: UTF8.self) == "Hello")
        #expect(pieces.last == .payload(Data("o".utf8), isFrameEnd: true))
        #expect(decoder.isBetweenFrames)
    }

    @Test("an empty data frame has one empty, final piece; an empty control frame comes out whole")
    func emptyFrames() {
        var decoder = WebSocketFrameDecoder(role: .client, maxFrameBytes: 10)
        decoder.append([0x82, 0x00, 0x8A, 0x00])
        #expect(
            decoder.drain().pieces == [
                .dataHead(WebSocketFrameHead(opcode: .binary, payloadLength: 0)), .payload(Data(), isFrameEnd: true),
                .control(WebSocketFrameHead(opcode: .pong, payloadLength: 0), Data()),
            ])
    }

    @Test("the default masking keys are drawn 64 to a batch and differ across batches")
    func defaultMaskingKeys() {
        var keys = WebSocketMaskingKeys()
        let drawn = (0..<200).map { _ in WebSocketMaskingKey.random(using: &keys) }
        // 200 keys of 32 random bits collide with a probability below 1 in 100,000.
        #expect(Set(drawn).count == 200)
        var other = WebSocketMaskingKeys()
        #expect(WebSocketMaskingKey.random(using: &other) != drawn[0])
    }

    @Test("masking eight bytes at a time matches masking byte by byte, at every offset and length")
    func maskingMatchesBytewise() {
        let key = WebSocketMaskingKey(0x01, 0x80, 0xFE, 0x37)
        for offset in 0..<4 {
            for count in [0, 1, 7, 8, 15, 16, 17, 31, 64, 100] {
                let plain = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 5) }
                var masked = plain
                masked.withUnsafeMutableBytes { key.apply(to: $0, offset: offset) }
                #expect(masked == plain.enumerated().map { $0.element ^ key[offset + $0.offset] })
            }
        }
    }

    /// A broken head and what the decoder must say of it.
    struct Broken: Sendable, CustomTestStringConvertible {
        let name: String
        let role: WebSocketRole
        let bytes: [UInt8]
        let failure: RequestError.WebSocketFailure
        let message: String
        var allowsCompression = false
        var maxFrameBytes = 1 << 20

        var testDescription: String { name }
    }

    static let broken: [Broken] = [
        Broken(
            name: "reserved opcode 3", role: .client, bytes: [0x83], failure: .protocolViolation,
            message: "the server sent a frame with the reserved opcode 0x3"),
        Broken(
            name: "reserved control opcode 11", role: .client, bytes: [0x8B], failure: .protocolViolation,
            message: "the server sent a frame with the reserved opcode 0xB"),
        Broken(
            name: "RSV2", role: .client, bytes: [0xA1], failure: .protocolViolation,
            message: "the server sent a frame with the reserved bit RSV2 set"),
        Broken(
            name: "RSV3", role: .client, bytes: [0x91], failure: .protocolViolation,
            message: "the server sent a frame with the reserved bit RSV3 set"),
        Broken(
            name: "RSV1 without an extension", role: .client, bytes: [0xC1], failure: .protocolViolation,
            message: "the server set the reserved bit RSV1 although no extension defining it was agreed"),
        Broken(
            name: "RSV1 on a continuation", role: .client, bytes: [0xC0], failure: .protocolViolation,
            message: "the server set RSV1 on a continuation frame; only a message's first frame may carry it",
            allowsCompression: true),
        Broken(
            name: "RSV1 on a ping", role: .client, bytes: [0xC9], failure: .protocolViolation,
            message: "the server set RSV1 on a ping frame; only a message's first frame may carry it",
            allowsCompression: true),
        Broken(
            name: "a fragmented ping", role: .client, bytes: [0x09], failure: .protocolViolation,
            message: "the server sent a fragmented control frame (a ping without FIN)"),
        Broken(
            name: "a close of 126 bytes", role: .client, bytes: [0x88, 0x7E], failure: .protocolViolation,
            message: "the server sent a close frame of more than 125 bytes; control frames carry at most 125"),
        Broken(
            name: "a masked frame from a server", role: .client, bytes: [0x81, 0x85], failure: .protocolViolation,
            message: "the server sent a masked frame; a server's frames are never masked"),
        Broken(
            name: "an unmasked frame from a client", role: .server, bytes: [0x81, 0x05], failure: .protocolViolation,
            message: "the client sent an unmasked frame; a client's frames are always masked"),
        Broken(
            name: "a 16-bit length that fits 7 bits", role: .client, bytes: [0x82, 0x7E, 0x00, 0x7D],
            failure: .protocolViolation,
            message: "the server encoded a payload length of 125 in 16 bits; 7 bits hold it"),
        Broken(
            name: "a 64-bit length that fits 16 bits", role: .client,
            bytes: [0x82, 0x7F, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF], failure: .protocolViolation,
            message: "the server encoded a payload length of 65535 in 64 bits; 16 bits hold it"),
        Broken(
            name: "a 64-bit length with its top bit set", role: .client,
            bytes: [0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0], failure: .protocolViolation,
            message: "the server sent a 64-bit payload length with its most significant bit set"),
        Broken(
            name: "a frame over the limit, told by its head", role: .client, bytes: [0x82, 0x7E, 0x01, 0x00],
            failure: .messageTooLarge, message: "the server sent a frame of 256 bytes, over the limit of 255 bytes",
            maxFrameBytes: 255),
        Broken(
            name: "a 64-bit frame over the limit", role: .client,
            bytes: [0x82, 0x7F, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00], failure: .messageTooLarge,
            message: "the server sent a frame of 4294967296 bytes, over the limit of 1048576 bytes"),
    ]

    @Test("a broken head fails as soon as its breaking byte arrives, naming the rule", arguments: broken)
    func brokenHead(_ broken: Broken) {
        var decoder = WebSocketFrameDecoder(
            role: broken.role, maxFrameBytes: broken.maxFrameBytes, allowsCompressedMessages: broken.allowsCompression)
        // Every byte but the last leaves the head unfinished and nothing decided.
        for byte in broken.bytes.dropLast() {
            decoder.append([byte])
            let early = decoder.drain()
            #expect(early.pieces.isEmpty)
            #expect(early.violation == nil)
        }
        decoder.append(broken.bytes.suffix(1))
        let violation = decoder.drain().violation
        #expect(violation?.failure == broken.failure)
        #expect(violation?.message == broken.message)
        #expect(violation?.closeCode == (broken.failure == .messageTooLarge ? .messageTooBig : .protocolError))
    }

    @Test("RSV1 on a text frame's first frame is accepted once permessage-deflate is agreed")
    func compressedBitAllowed() {
        var decoder = WebSocketFrameDecoder(role: .client, maxFrameBytes: 100, allowsCompressedMessages: true)
        decoder.append([0xC1, 0x01, 0x00])
        #expect(
            decoder.drain().pieces == [
                .dataHead(WebSocketFrameHead(isCompressed: true, opcode: .text, payloadLength: 1)),
                .payload(Data([0]), isFrameEnd: true),
            ])
    }

    @Test("a control frame of exactly 125 bytes and a frame of exactly the limit are accepted")
    func limitsAreInclusive() {
        var decoder = WebSocketFrameDecoder(role: .client, maxFrameBytes: 200)
        decoder.append(FrameBytes.frame(0x9, [UInt8](repeating: 1, count: 125)))
        decoder.append(FrameBytes.frame(0x2, [UInt8](repeating: 2, count: 200)))
        let decoded = decoder.drain()
        #expect(decoded.violation == nil)
        #expect(decoded.pieces.count == 3)
    }

    @Test("the close payload is the code in network order, then the reason's UTF-8")
    func closePayload() throws {
        #expect(
            Array(WebSocketFrameEncoder.closePayload(code: .normalClosure, reason: "done")) == [
                0x03, 0xE8, 0x64, 0x6F, 0x6E, 0x65,
            ])
        let custom = try #require(WebSocketCloseCode(4999))
        #expect(Array(WebSocketFrameEncoder.closePayload(code: custom, reason: "")) == [0x13, 0x87])
    }
}

import Foundation
import RequestKitModel
import RequestKitTestSupport
import RequestKitWebSocket
import Testing

/// permessage-deflate (RFC 7692): the offer, the check of a server's answer, a server's answer, compression and
/// decompression over the system zlib (the RFC's own examples), context takeover and window sizes, and the limits on
/// what a compressed message may inflate to.
@Suite("WebSocket permessage-deflate")
struct PerMessageDeflateTests {
    typealias Parameters = PerMessageDeflateParameters

    @Test("the offer names each parameter asked for, and always client_max_window_bits")
    func offers() {
        #expect(Parameters.offer(WebSocket.Compression()) == "permessage-deflate; client_max_window_bits")
        #expect(
            Parameters.offer(
                WebSocket.Compression(
                    serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: 10,
                    clientMaxWindowBits: 9))
                == "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10; client_max_window_bits=9"
        )
    }

    /// A server's answer to an offer and what the client takes from it.
    struct Answer: Sendable, CustomTestStringConvertible {
        let header: String
        var offer = WebSocket.Compression()
        let outcome: Outcome
        var testDescription: String { header }

        enum Outcome: Sendable {
            case success(Parameters)
            case failure(String)
        }
    }

    static let answers: [Answer] = [
        Answer(header: "permessage-deflate", outcome: .success(Parameters())),
        Answer(
            header: "permessage-deflate; server_no_context_takeover; client_no_context_takeover",
            outcome: .success(Parameters(serverNoContextTakeover: true, clientNoContextTakeover: true))),
        Answer(
            header: "permessage-deflate; server_max_window_bits=9; client_max_window_bits=\"8\"",
            outcome: .success(Parameters(serverMaxWindowBits: 9, clientMaxWindowBits: 8))),
        Answer(
            header: "Permessage-Deflate; Server_Max_Window_Bits=12",
            offer: WebSocket.Compression(serverMaxWindowBits: 12, clientMaxWindowBits: 11),
            outcome: .success(Parameters(serverMaxWindowBits: 12, clientMaxWindowBits: 11))),
        Answer(
            header: "permessage-deflate; server_max_window_bits=13",
            offer: WebSocket.Compression(serverMaxWindowBits: 12),
            outcome: .failure("answers server_max_window_bits=13, above the 12 offered")),
        Answer(
            header: "permessage-deflate", offer: WebSocket.Compression(serverMaxWindowBits: 12),
            outcome: .failure("did not answer server_max_window_bits=12")),
        Answer(
            header: "permessage-deflate; client_max_window_bits=12",
            offer: WebSocket.Compression(clientMaxWindowBits: 10),
            outcome: .failure("answers client_max_window_bits=12, above the 10 offered")),
        Answer(
            header: "permessage-deflate", offer: WebSocket.Compression(serverNoContextTakeover: true),
            outcome: .failure("did not agree to server_no_context_takeover, which was offered")),
        Answer(
            header: "permessage-deflate; server_max_window_bits=7",
            outcome: .failure("gives server_max_window_bits the value 7; it takes 8 to 15")),
        Answer(
            header: "permessage-deflate; client_max_window_bits=010",
            outcome: .failure("gives client_max_window_bits the value 010; it takes 8 to 15")),
        Answer(
            header: "permessage-deflate; client_max_window_bits",
            outcome: .failure("gives client_max_window_bits the value none; it takes 8 to 15")),
        Answer(
            header: "permessage-deflate; server_no_context_takeover=1",
            outcome: .failure("gives server_no_context_takeover a value")),
        Answer(
            header: "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
            outcome: .failure("repeats the parameter server_no_context_takeover")),
        Answer(
            header: "permessage-deflate; mystery=1", outcome: .failure("answers with the unknown parameter mystery")),
    ]

    @Test("a server's answer is checked against the offer", arguments: answers)
    func checksAnswers(_ answer: Answer) throws {
        let element = try #require(try WebSocketExtensionHeader.parse([answer.header]).first)
        switch answer.outcome {
        case .success(let expected):
            #expect(try Parameters.accepting(element, offered: answer.offer) == expected)
        case .failure(let message):
            #expect {
                try Parameters.accepting(element, offered: answer.offer)
            } throws: { error in
                (error as? RequestError)?.webSocketFailureMessage == "the server's permessage-deflate \(message)"
                    && (error as? RequestError)?.webSocketFailure == .invalidHandshake
            }
        }
    }

    @Test("the extension header's grammar: lists, parameters, quoted values, several field lines")
    func parsesExtensionHeaders() throws {
        let elements = try WebSocketExtensionHeader.parse([
            "permessage-deflate ; client_max_window_bits = \"10\" , x-custom", "foo;bar=\"a\\\"b\"",
        ])
        #expect(
            elements == [
                .init(name: "permessage-deflate", parameters: [("client_max_window_bits", "10")]),
                .init(name: "x-custom"), .init(name: "foo", parameters: [("bar", "a\"b")]),
            ])
        for malformed in ["permessage-deflate;", "a b", "x; y=\"open", ";"] {
            #expect(throws: WebSocketExtensionHeader.Malformed.self) { try WebSocketExtensionHeader.parse([malformed]) }
        }
    }

    @Test("a server answers the first offer it can take, and says what it took")
    func serverAnswers() throws {
        let offers = try WebSocketExtensionHeader.parse([
            "permessage-deflate; unknown_parameter, permessage-deflate; client_max_window_bits; server_max_window_bits=10; client_no_context_takeover"
        ])
        let answer = try #require(Parameters.answering(offers))
        #expect(answer.header == "permessage-deflate; server_max_window_bits=10; client_no_context_takeover")
        #expect(answer.parameters == Parameters(clientNoContextTakeover: true, serverMaxWindowBits: 10))
        #expect(Parameters.answering(try WebSocketExtensionHeader.parse(["x-webkit-deflate-frame"])) == nil)
    }

    static func compress(_ deflater: WebSocketDeflater, _ text: String) -> [UInt8]? {
        Array(text.utf8).withUnsafeBytes { deflater.compress($0) }.map(Array.init)
    }

    @Test("RFC 7692 §7.2.3.1–2: \"Hello\" compresses to the RFC's bytes, and again to fewer with the window kept")
    func compressesAsTheRFC() throws {
        let deflater = try #require(WebSocketDeflater(maxWindowBits: 15, noContextTakeover: false))
        #expect(Self.compress(deflater, "Hello") == [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00])
        #expect(Self.compress(deflater, "Hello") == [0xf2, 0x00, 0x11, 0x00, 0x00])
        let alone = try #require(WebSocketDeflater(maxWindowBits: 15, noContextTakeover: true))
        #expect(Self.compress(alone, "Hello") == [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00])
        #expect(Self.compress(alone, "Hello") == [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00])
    }

    @Test("with an 8-bit window the compressor writes stored blocks, which any window inflates")
    func eightBitWindowStores() throws {
        let deflater = try #require(WebSocketDeflater(maxWindowBits: 8, noContextTakeover: false))
        // A stored block of "Hello", then the start of the flush's empty block whose last four bytes go.
        let stored = try #require(Self.compress(deflater, "Hello"))
        #expect(stored == [0x00, 0x05, 0x00, 0xfa, 0xff, 0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x00])
        var machine = WebSocketConnectionStateMachine(
            role: .client, configuration: .init(), compression: Parameters(serverMaxWindowBits: 8))
        let actions = machine.feed(FrameBytes.frame(0x1, stored, rsv1: true))
        #expect(actions == [.deliver(.text("Hello"))])
    }

    /// RFC 7692's example messages, as a server sends them, and the text each holds.
    static let rfcMessages: [(name: String, frames: [UInt8], text: String)] = [
        ("§7.2.3.1, one frame", [0xc1, 0x07, 0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00], "Hello"),
        (
            "§7.2.3.1, two fragments", [0x41, 0x03, 0xf2, 0x48, 0xcd, 0x80, 0x04, 0xc9, 0xc9, 0x07, 0x00],
            "Hello"
        ),
        (
            "§7.2.3.3, a stored block",
            [0xc1, 0x0b, 0x00, 0x05, 0x00, 0xfa, 0xff, 0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x00], "Hello"
        ),
        ("§7.2.3.4, a final block", [0xc1, 0x08, 0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00], "Hello"),
        (
            "§7.2.3.5, two blocks",
            [0xc1, 0x0d, 0xf2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xff, 0xff, 0xca, 0xc9, 0xc9, 0x07, 0x00], "Hello"
        ),
    ]

    @Test("RFC 7692's example messages inflate to \"Hello\", and a final block leaves the stream ready for the next")
    func inflatesTheRFCExamples() {
        for example in Self.rfcMessages {
            var machine = WebSocketConnectionStateMachine(
                role: .client, configuration: .init(), compression: Parameters(), maskingKeys: FixedMaskingKeys())
            let first = machine.feed(example.frames)
            _ = machine.messageConsumed(byteCount: 5)
            let second = machine.feed(example.frames)
            #expect(first == [.deliver(.text(example.text))], "\(example.name)")
            #expect(second == [.deliver(.text(example.text))], "\(example.name), again")
        }
        var machine = WebSocketConnectionStateMachine(
            role: .client, configuration: .init(), compression: Parameters(), maskingKeys: FixedMaskingKeys())
        let shared = machine.feed(
            [0xc1, 0x07, 0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0xc1, 0x05, 0xf2, 0x00, 0x11, 0x00, 0x00])
        #expect(shared == [.deliver(.text("Hello")), .deliver(.text("Hello"))])
    }

    /// Every combination of window and context takeover, each way.
    static let agreements: [Parameters] = (8...15).flatMap { bits in
        [
            Parameters(serverMaxWindowBits: bits, clientMaxWindowBits: bits),
            Parameters(
                serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: bits,
                clientMaxWindowBits: 23 - bits),
        ]
    }

    @Test(
        "messages a client compresses inflate at the server, and back, for every window and takeover",
        arguments: agreements)
    func roundTrips(_ parameters: Parameters) throws {
        var client = WebSocketConnectionStateMachine(
            role: .client, configuration: .init(outgoingFrameBytes: 700), compression: parameters)
        var server = WebSocketConnectionStateMachine(
            role: .server, configuration: .init(outgoingFrameBytes: 500), compression: parameters)
        var generator = SplitMix64(state: UInt64(parameters.serverMaxWindowBits))
        for round in 0..<6 {
            let words = (0..<(round * 300)).map { _ in
                ["alpha", "beta", "gamma", "δέλτα", "ε"][Int(generator.next() % 5)]
            }
            let text = words.joined(separator: " ")
            guard case .write(let fromClient) = try client.send(.text(text)) else {
                Issue.record("the client wrote nothing")
                return
            }
            #expect(fromClient.first.map { $0 & 0x40 != 0 } == true)
            let atServer = server.feed(Array(fromClient))
            #expect(atServer == [.deliver(.text(text))], "round \(round)")
            _ = server.messageConsumed(byteCount: text.utf8.count)
            let binary = Data(text.utf8.reversed())
            guard case .write(let fromServer) = try server.send(.binary(binary)) else {
                Issue.record("the server wrote nothing")
                return
            }
            let atClient = client.feed(Array(fromServer))
            #expect(atClient == [.deliver(.binary(binary))], "round \(round)")
            _ = client.messageConsumed(byteCount: binary.count)
        }
    }

    /// A client machine that agreed to permessage-deflate, and the frame a server sends for `data` compressed.
    static func compressedFrame(_ data: [UInt8], opcode: UInt8 = 0x2) throws -> [UInt8] {
        let deflater = try #require(WebSocketDeflater(maxWindowBits: 15, noContextTakeover: false))
        let payload = try #require(data.withUnsafeBytes { deflater.compress($0) })
        return FrameBytes.frame(opcode, Array(payload), rsv1: true)
    }

    @Test("a compressed message that expands more than the ratio fails once past the 1 MiB allowance")
    func ratioBomb() throws {
        let bomb = try Self.compressedFrame([UInt8](repeating: 0, count: 4 << 20))
        var machine = WebSocketConnectionStateMachine(
            role: .client, configuration: .init(maxMessageBytes: 64 << 20, maxDecompressionRatio: 100),
            compression: Parameters(), maskingKeys: FixedMaskingKeys())
        let actions = machine.feed(bomb)
        let message = "a compressed message from the server expands more than 100 times"
        #expect(
            actions == [
                .close(
                    writingFirst: FrameBytes.maskedClose(1009, message),
                    ending: .failed(WebSocketViolation.tooLarge(message).record, kind: .webSocket))
            ])
        // The same bytes pass when the ratio allows them.
        var lenient = WebSocketConnectionStateMachine(
            role: .client, configuration: .init(maxMessageBytes: 64 << 20, maxDecompressionRatio: 10_000),
            compression: Parameters())
        let inflated = lenient.feed(bomb)
        #expect(inflated == [.deliver(.binary(Data(count: 4 << 20)))])
    }

    @Test("a compressed message that inflates past the message limit fails, under the allowance too")
    func messageLimitAfterInflating() throws {
        var machine = WebSocketConnectionStateMachine(
            role: .client, configuration: .init(maxMessageBytes: 1000), compression: Parameters(),
            maskingKeys: FixedMaskingKeys())
        let message = "the server sent a message of more than 1000 bytes, the limit"
        let over = machine.feed(try Self.compressedFrame([UInt8](repeating: 7, count: 1001)))
        #expect(
            over == [
                .close(
                    writingFirst: FrameBytes.maskedClose(1009, message),
                    ending: .failed(WebSocketViolation.tooLarge(message).record, kind: .webSocket))
            ])
        var exact = WebSocketConnectionStateMachine(
            role: .client, configuration: .init(maxMessageBytes: 1000), compression: Parameters())
        let atLimit = exact.feed(try Self.compressedFrame([UInt8](repeating: 7, count: 1000)))
        #expect(atLimit == [.deliver(.binary(Data(repeating: 7, count: 1000)))])
    }

    @Test("bytes that are not DEFLATE fail with 1007")
    func corruptData() {
        var machine = WebSocketConnectionStateMachine(
            role: .client, configuration: .init(), compression: Parameters(), maskingKeys: FixedMaskingKeys())
        let message = "the server sent a compressed message that zlib cannot inflate"
        let corrupt = machine.feed(FrameBytes.frame(0x2, [0xFF, 0xFF, 0xFF, 0xFF], rsv1: true))
        #expect(
            corrupt == [
                .close(
                    writingFirst: FrameBytes.maskedClose(1007, message),
                    ending: .failed(WebSocketViolation.invalidCompressedData(message).record, kind: .webSocket))
            ])
    }

    @Test("compressed text is checked as it inflates: a bad sequence fails before the message ends")
    func compressedTextFailsFast() throws {
        var machine = WebSocketConnectionStateMachine(
            role: .client, configuration: .init(), compression: Parameters(), maskingKeys: FixedMaskingKeys())
        let frame = try Self.compressedFrame(Array("valid so far ".utf8) + [0xC0, 0x80], opcode: 0x1)
        var first = frame
        first[0] &= 0x7F  // not the last frame: the message has not ended
        let message = "the server sent a text message that is not UTF-8"
        let actions = machine.feed(first)
        #expect(
            actions == [
                .close(
                    writingFirst: FrameBytes.maskedClose(1007, message),
                    ending: .failed(WebSocketViolation.invalidUTF8(message).record, kind: .webSocket))
            ])
    }
}

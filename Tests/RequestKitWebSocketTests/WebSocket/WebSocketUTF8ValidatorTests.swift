import Foundation
import RequestKitTestSupport
import RequestKitWebSocket
import Testing

/// Incremental UTF-8 validation: the boundaries of every row of Unicode's table of well-formed sequences, the
/// forms it excludes (overlong, surrogates, past U+10FFFF), the exact byte where a bad sequence is caught, and the
/// same answers however the bytes are split.
@Suite("WebSocket UTF-8 validation")
struct WebSocketUTF8ValidatorTests {
    static let valid: [[UInt8]] = [
        [0x00], [0x7F], [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xE0, 0xBF, 0xBF], [0xE1, 0x80, 0x80],
        [0xEC, 0xBF, 0xBF], [0xED, 0x80, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF],
        [0xF0, 0x90, 0x80, 0x80], [0xF0, 0xBF, 0xBF, 0xBF], [0xF1, 0x80, 0x80, 0x80], [0xF3, 0xBF, 0xBF, 0xBF],
        [0xF4, 0x80, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], Array("κόσμε".utf8), Array("Hello-µ@ßöäüàá-UTF-8!!".utf8),
    ]

    @Test("every first and last sequence of each row of Unicode's table 3-7 is valid", arguments: valid)
    func acceptsWellFormed(_ bytes: [UInt8]) {
        var validator = WebSocketUTF8Validator()
        let isValid = validator.validate(bytes)
        #expect(isValid)
        #expect(validator.isAtBoundary)
        #expect(String(validating: bytes, as: UTF8.self) != nil)
    }

    /// A sequence that is not UTF-8, and the index of the byte at which no valid text can go on.
    struct Invalid: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let failsAt: Int
        var testDescription: String { name }
    }

    static let invalid: [Invalid] = [
        Invalid(name: "a lone continuation byte", bytes: [0x41, 0x80], failsAt: 1),
        Invalid(name: "overlong NUL (C0 80)", bytes: [0xC0, 0x80], failsAt: 0),
        Invalid(name: "overlong two bytes (C1 BF)", bytes: [0xC1, 0xBF], failsAt: 0),
        Invalid(name: "overlong three bytes (E0 9F BF)", bytes: [0xE0, 0x9F, 0xBF], failsAt: 1),
        Invalid(name: "overlong four bytes (F0 8F BF BF)", bytes: [0xF0, 0x8F, 0xBF, 0xBF], failsAt: 1),
        Invalid(name: "the first surrogate (ED A0 80)", bytes: [0xED, 0xA0, 0x80], failsAt: 1),
        Invalid(name: "the last surrogate (ED BF BF)", bytes: [0xED, 0xBF, 0xBF], failsAt: 1),
        Invalid(name: "past U+10FFFF (F4 90 80 80)", bytes: [0xF4, 0x90, 0x80, 0x80], failsAt: 1),
        Invalid(name: "F5, never a first byte", bytes: [0xF5, 0x80, 0x80, 0x80], failsAt: 0),
        Invalid(name: "FF", bytes: [0x61, 0x62, 0xFF], failsAt: 2),
        Invalid(name: "a sequence cut by ASCII", bytes: [0xE2, 0x82, 0x41], failsAt: 2),
        Invalid(
            name: "Autobahn 6.3.1's payload", bytes: Array("κόσμε".utf8) + [0xED, 0xA0, 0x80] + Array("edited".utf8),
            failsAt: Array("κόσμε".utf8).count + 1),
        Invalid(
            name: "a bad byte after 20 ASCII bytes (the word-at-a-time path)",
            bytes: Array("abcdefghijklmnopqrst".utf8) + [0xC0], failsAt: 20),
    ]

    @Test("a bad sequence is caught at its first impossible byte, fed whole or byte by byte", arguments: invalid)
    func failsFast(_ case_: Invalid) {
        var whole = WebSocketUTF8Validator()
        let isValid = whole.validate(case_.bytes)
        #expect(!isValid)
        var bytewise = WebSocketUTF8Validator()
        let failure = case_.bytes.indices.first { !bytewise.validate([case_.bytes[$0]]) }
        #expect(failure == case_.failsAt)
        #expect(String(validating: case_.bytes, as: UTF8.self) == nil)
    }

    @Test("a sequence cut short is valid so far but not at a boundary")
    func truncatedSequence() {
        for bytes: [UInt8] in [[0xC2], [0xE1, 0x80], [0xF0, 0x90, 0x80]] {
            var validator = WebSocketUTF8Validator()
            let isValid = validator.validate(bytes)
            #expect(isValid)
            #expect(!validator.isAtBoundary)
        }
    }

    @Test("split at every point into two pieces, random bytes get the standard library's answer")
    func splitsAgreeWithTheStandardLibrary() {
        var generator = SplitMix64(state: 0x5EED)
        for round in 0..<400 {
            // Mostly well-formed text with a few bytes changed, so that both answers come up often.
            var bytes = Array("añ€𝄞z-\(round)-κόσμε-🎉".utf8)
            for _ in 0..<(round % 3) {
                let index = Int(generator.next() % UInt64(bytes.count))
                bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            for split in 0...bytes.count {
                var validator = WebSocketUTF8Validator()
                let first = validator.validate(bytes[..<split])
                let answer = first && validator.validate(bytes[split...]) && validator.isAtBoundary
                #expect(answer == expected, "round \(round), split at \(split)")
            }
        }
    }
}

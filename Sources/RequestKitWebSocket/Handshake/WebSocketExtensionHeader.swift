import RequestKitModel

/// The grammar of `Sec-WebSocket-Extensions` (RFC 6455 §9.1): a comma-separated list of extensions, each a token
/// followed by `;`-separated parameters, a parameter a token with an optional value, a token or a quoted string.
///
/// ```swift
/// WebSocketExtensionHeader.parse(["permessage-deflate; client_max_window_bits=10, x-other"])
/// // [permessage-deflate [client_max_window_bits: 10], x-other []]
/// ```
package enum WebSocketExtensionHeader {
    /// One extension of the list.
    package struct Element: Sendable, Hashable {
        /// The extension's name, as written.
        package var name: String
        /// Its parameters in order; a parameter without a value has nil.
        package var parameters: [(name: String, value: String?)]

        package init(name: String, parameters: [(name: String, value: String?)] = []) {
            self.name = name
            self.parameters = parameters
        }

        package static func == (left: Self, right: Self) -> Bool {
            left.name == right.name && left.parameters.count == right.parameters.count
                && zip(left.parameters, right.parameters).allSatisfy { $0.name == $1.name && $0.value == $1.value }
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            for parameter in parameters {
                hasher.combine(parameter.name)
                hasher.combine(parameter.value)
            }
        }

        /// The element as it is written in the header.
        package var headerText: String {
            ([name]
                + parameters.map { parameter in parameter.value.map { "\(parameter.name)=\($0)" } ?? parameter.name })
                .joined(separator: "; ")
        }
    }

    /// The extensions of every field line, in order.
    ///
    /// - Throws: A message saying what breaks the grammar.
    package static func parse(_ values: [String]) throws(Malformed) -> [Element] {
        var elements: [Element] = []
        for value in values {
            var scanner = Scanner(Array(value.utf8))
            while true {
                scanner.skipWhitespace()
                if scanner.isAtEnd { break }
                if scanner.take(UInt8(ascii: ",")) { continue }
                guard let name = scanner.token() else { throw Malformed("expected an extension name in \"\(value)\"") }
                var element = Element(name: name)
                scanner.skipWhitespace()
                while scanner.take(UInt8(ascii: ";")) {
                    scanner.skipWhitespace()
                    guard let parameter = scanner.token() else {
                        throw Malformed("expected a parameter name after \";\" in \"\(value)\"")
                    }
                    scanner.skipWhitespace()
                    var parameterValue: String?
                    if scanner.take(UInt8(ascii: "=")) {
                        scanner.skipWhitespace()
                        guard let text = try scanner.tokenOrQuotedString() else {
                            throw Malformed("expected a value for \(parameter) in \"\(value)\"")
                        }
                        parameterValue = text
                        scanner.skipWhitespace()
                    }
                    element.parameters.append((parameter, parameterValue))
                }
                elements.append(element)
                scanner.skipWhitespace()
                if !scanner.isAtEnd, !scanner.take(UInt8(ascii: ",")) {
                    throw Malformed("unexpected text after \(name) in \"\(value)\"")
                }
            }
        }
        return elements
    }

    /// Why a header does not follow the grammar.
    package struct Malformed: Error, Sendable, Hashable, CustomStringConvertible {
        package let description: String

        init(_ description: String) { self.description = description }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { index >= bytes.count }

        mutating func skipWhitespace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func token() -> String? {
            let start = index
            while index < bytes.count, HTTPSyntax.isTokenByte(bytes[index]) { index += 1 }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }

        mutating func tokenOrQuotedString() throws(Malformed) -> String? {
            guard take(UInt8(ascii: "\"")) else { return token() }
            var text: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw Malformed("a quoted string ends with \"\\\"") }
                    text.append(bytes[index])
                    index += 1
                default: text.append(byte)
                }
            }
            throw Malformed("a quoted string is not closed")
        }
    }
}

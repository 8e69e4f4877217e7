/// Serializes `Json` values to UTF-8 bytes.
///
/// Output is appended to one growing byte array. Strings are copied in runs between the bytes that need an
/// escape (`"`, `\` and control characters, written as short escapes or `\u00XX`); integers are written digit by
/// digit; doubles use Swift's shortest representation that reads back to the same value (always valid JSON
/// for the finite values `Json` holds); numbers kept as text are written back verbatim.
struct JsonWriter {
    private(set) var output: [UInt8] = []
    private let isPretty: Bool
    private let sortsKeys: Bool
    private var indentation = 0

    init(options: Json.WritingOptions) {
        isPretty = options.contains(.prettyPrinted)
        sortsKeys = options.contains(.sortedKeys)
    }

    mutating func write(_ value: Json) {
        switch value.storage {
        case .missing, .null:
            append("null")
        case .bool(let value):
            append(value ? "true" : "false")
        case .integer(let value):
            writeInteger(value)
        case .double(let value):
            output.append(contentsOf: value.description.utf8)
        case .numberText(let text):
            output.append(contentsOf: text.utf8)
        case .string(let string):
            writeString(string)
        case .array(let elements):
            writeArray(elements)
        case .object(let object):
            writeObject(sortsKeys ? object.entries.sorted { $0.key < $1.key } : object.entries)
        }
    }

    private mutating func append(_ text: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func writeArray(_ elements: [Json]) {
        guard !elements.isEmpty else {
            append("[]")
            return
        }
        output.append(UInt8(ascii: "["))
        indentation += 1
        for (offset, element) in elements.enumerated() {
            if offset > 0 {
                output.append(UInt8(ascii: ","))
            }
            writeNewline()
            write(element)
        }
        indentation -= 1
        writeNewline()
        output.append(UInt8(ascii: "]"))
    }

    private mutating func writeObject(_ entries: [JsonMember]) {
        guard !entries.isEmpty else {
            append("{}")
            return
        }
        output.append(UInt8(ascii: "{"))
        indentation += 1
        for (offset, entry) in entries.enumerated() {
            if offset > 0 {
                output.append(UInt8(ascii: ","))
            }
            writeNewline()
            writeString(entry.key)
            output.append(UInt8(ascii: ":"))
            if isPretty {
                output.append(UInt8(ascii: " "))
            }
            write(entry.value)
        }
        indentation -= 1
        writeNewline()
        output.append(UInt8(ascii: "}"))
    }

    private mutating func writeNewline() {
        guard isPretty else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indentation * 2))
    }

    private mutating func writeInteger(_ value: Int64) {
        Self.appendInteger(value.magnitude, isNegative: value < 0, to: &output)
    }

    private mutating func writeString(_ string: String) {
        Self.appendString(string, escapingSlashes: false, to: &output)
    }

    /// Appends an integer's digits, after a minus sign when `isNegative`.
    static func appendInteger(_ magnitude: UInt64, isNegative: Bool, to output: inout some JsonByteSink) {
        // Digits are produced from the last one into a 21-byte buffer: enough for "-18446744073709551615".
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { digits in
            var magnitude = magnitude
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if isNegative {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Appends a string in quotes, escaping `"`, `\\` and control characters, and `/` when `escapingSlashes`
    /// (as `JSONEncoder` does by default).
    static func appendString(_ string: String, escapingSlashes: Bool, to output: inout some JsonByteSink) {
        var string = string
        string.withUTF8 { utf8 in appendString(utf8, escapingSlashes: escapingSlashes, to: &output) }
    }

    /// Appends a string given as its UTF-8 bytes, as ``appendString(_:escapingSlashes:to:)`` does. Runs of
    /// eight bytes that need no escape are skipped at once, and each run between escapes is copied at once.
    static func appendString(
        _ utf8: UnsafeBufferPointer<UInt8>, escapingSlashes: Bool, to output: inout some JsonByteSink
    ) {
        output.append(UInt8(ascii: "\""))
        guard let base = utf8.baseAddress else {
            output.append(UInt8(ascii: "\""))
            return
        }
        let count = utf8.count
        var runStart = 0
        var index = 0
        while index < count {
            while index + 8 <= count,
                !needsEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self), escapingSlashes)
            {
                index += 8
            }
            guard index < count else { break }
            let byte = base[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
                || (escapingSlashes && byte == UInt8(ascii: "/"))
            {
                output.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart))
                appendEscape(for: byte, to: &output)
                runStart = index + 1
            }
            index += 1
        }
        output.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: count - runStart))
        output.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes of `word` is a quote, a backslash, a control character, or a slash when
    /// `escapingSlashes`. False positives only cost a look at single bytes; there are no false negatives.
    @inline(__always)
    private static func needsEscape(_ word: UInt64, _ escapingSlashes: Bool) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        var found = (quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes | (word &- ones &* 0x20) & ~word
        if escapingSlashes {
            let slashes = word ^ (ones &* UInt64(UInt8(ascii: "/")))
            found |= (slashes &- ones) & ~slashes
        }
        return found & 0x8080_8080_8080_8080 != 0
    }

    private static func appendEscape(for byte: UInt8, to output: inout some JsonByteSink) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            output.append(UInt8(ascii: "u"))
            output.append(UInt8(ascii: "0"))
            output.append(UInt8(ascii: "0"))
            output.append(hexDigits.utf8Start[Int(byte >> 4)])
            output.append(hexDigits.utf8Start[Int(byte & 0x0F)])
        }
    }
}

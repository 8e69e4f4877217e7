// The JSON parser: a hand-written recursive descent over raw UTF-8 bytes.
//
// Design and data layout
// ----------------------
// The input is read in place through an `UnsafeRawBufferPointer` (`bytes`) and a single cursor (`position`).
// Every byte read is preceded by a `position < bytes.count` test (or a test that covers the whole run being
// read), so the parser is bounds-checked by construction and never reads outside the buffer, whatever the
// input. Nothing is tokenized up front: each `parse…` method starts at the first byte of its construct and
// leaves `position` just past it, building the `Json` value directly.
//
// - Strings: the common case, a string without escapes, is found with an eight-bytes-at-a-time scan (SWAR)
//   for `"`, `\`, control characters and non-ASCII bytes, then copied once with `String(decoding:as:)`.
//   Non-ASCII bytes are validated as well-formed UTF-8 on the way (no overlongs, no encoded surrogates, nothing
//   beyond U+10FFFF, no truncated sequences). Object keys without escapes go through a `JsonKeyCache`, so a key
//   that repeats is created once. Strings with escapes are decoded into a reusable byte buffer
//   (`scratch`) that lives as long as the parse, so escapes cost no allocation beyond the final `String`.
// - Numbers: digits are accumulated by hand into a `UInt64`, up to eight at a time while the significand has
//   room for them. Integers that fit `Int64` are stored exactly; decimals with at most 2⁵³ in the significand
//   and a power of ten up to 22 are computed exactly with one multiplication or division (the classic fast
//   path), others of up to 19 digits with the Eisel–Lemire algorithm (`DecimalToDouble`), and the rest through
//   the standard library's correctly rounded conversion. Numbers beyond `Int64` and `Double` keep their exact
//   text.
// - Arrays are `[Json]`; objects are `JsonObject`, an array of `JsonMember`s in document order plus a hash
//   index for large objects. Elements and members are gathered on a `JsonParseStack` while their container is
//   open and moved into an array of exactly their count when it closes. Duplicate keys are resolved once an object is complete: the last value wins.
// - Depth: every array or object increments `depth`; past `maximumDepth` parsing fails instead of recursing
//   further, so hostile nesting cannot overflow the stack.
// - Errors: positions are tracked only as a byte offset; line and column are computed from the input when an
//   error is thrown, so the happy path does no line bookkeeping.
struct JsonParser {
    let bytes: UnsafeRawBufferPointer
    var position = 0
    let maximumDepth: Int
    var depth = 0
    /// The buffer strings with escapes are decoded into; reused for every such string.
    var scratch: [UInt8] = []
    /// Object keys already made into strings, shared when they repeat.
    var keyCache = JsonKeyCache()
    /// The elements of the open arrays and the members of the open objects (see `JsonParseStack`); made by
    /// `parse`, absent in parsers that only scan.
    private var elementStack: JsonParseStack<Json>?
    private var memberStack: JsonParseStack<JsonMember>?
    /// The fingerprints of the keys in `memberStack`.
    private var fingerprintStack: JsonParseStack<UInt64>?

    init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    /// Parses a whole document: an optional byte order mark, one value, and nothing but whitespace after it.
    static func parse(_ bytes: UnsafeRawBufferPointer, options: Json.ParsingOptions) throws(JsonParsingError) -> Json {
        var parser = JsonParser(bytes: bytes, maximumDepth: options.maximumDepth)
        parser.elementStack = JsonParseStack()
        parser.memberStack = JsonParseStack()
        parser.fingerprintStack = JsonParseStack()
        parser.keyCache = JsonKeyCache(documentSize: bytes.count)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            parser.position = 3
        }
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.position == bytes.count else {
            throw parser.error(.unexpectedCharacter, expected: "the end of the document")
        }
        return value
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                position += 1
            case UInt8(ascii: "\n"):
                position += 1
                // Indentation follows a line break: skip it eight spaces at a time, then up to the first byte
                // that is not a space (the lowest byte that differs from a space, in memory order).
                while position + 8 <= bytes.count {
                    let notSpaces =
                        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                        ^ 0x2020_2020_2020_2020
                    if notSpaces != 0 {
                        position += notSpaces.trailingZeroBitCount &>> 3
                        break
                    }
                    position += 8
                }
            default:
                return
            }
        }
    }

    mutating func parseValue() throws(JsonParsingError) -> Json {
        skipWhitespace()
        guard position < bytes.count else {
            throw error(.unexpectedEnd, expected: "a value")
        }
        switch bytes[position] {
        case UInt8(ascii: "\""):
            return Json(storage: .string(try parseString()))
        case UInt8(ascii: "{"):
            return try parseObject()
        case UInt8(ascii: "["):
            return try parseArray()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        case UInt8(ascii: "t"):
            try expectKeyword("true")
            return Json(storage: .bool(true))
        case UInt8(ascii: "f"):
            try expectKeyword("false")
            return Json(storage: .bool(false))
        case UInt8(ascii: "n"):
            try expectKeyword("null")
            return .null
        default:
            throw error(.unexpectedCharacter, expected: "a value")
        }
    }

    /// Moves past `keyword` (`true`, `false` or `null`), which must be at `position`. Its first and last four
    /// bytes are compared a word at a time; only a mismatch or the end of the input reads byte by byte, to say
    /// what is wrong.
    @inline(__always)
    mutating func expectKeyword(_ keyword: StaticString) throws(JsonParsingError) {
        let length = keyword.utf8CodeUnitCount
        if length >= 4, position + length <= bytes.count {
            let expected = UnsafeRawPointer(keyword.utf8Start)
            let headMatches =
                bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)
                == expected.loadUnaligned(as: UInt32.self)
            let tailMatches =
                bytes.loadUnaligned(fromByteOffset: position + length - 4, as: UInt32.self)
                == expected.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
            if headMatches && tailMatches {
                position += length
                return
            }
        }
        try expectKeywordByteByByte(keyword)
    }

    private mutating func expectKeywordByteByByte(_ keyword: StaticString) throws(JsonParsingError) {
        let length = keyword.utf8CodeUnitCount
        for offset in 0..<length {
            guard position < bytes.count else {
                throw error(.unexpectedEnd, expected: "'\(keyword)'")
            }
            guard bytes[position] == keyword.utf8Start[offset] else {
                throw error(.unexpectedCharacter, expected: "'\(keyword)'")
            }
            position += 1
        }
    }

    mutating func enterContainer() throws(JsonParsingError) {
        depth += 1
        guard depth <= maximumDepth else {
            throw error(
                .nestingTooDeep, message: "Arrays and objects nest deeper than the limit of \(maximumDepth)",
                at: position)
        }
        position += 1
    }

    private mutating func parseArray() throws(JsonParsingError) -> Json {
        try enterContainer()
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return Json(storage: .array([]))
        }
        // The stacks are reached through `self` at each use rather than held in a local across the recursion, which
        // would retain and release them for every container.
        if elementStack == nil {
            elementStack = JsonParseStack()
        }
        let base = elementStack?.count ?? 0
        while true {
            let element = try parseValue()
            elementStack?.push(element)
            skipWhitespace()
            guard position < bytes.count else {
                throw error(.unexpectedEnd, expected: "',' or ']' after an array element")
            }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return Json(storage: .array(elementStack?.popElements(from: base) ?? []))
            default:
                throw error(.unexpectedCharacter, expected: "',' or ']' after an array element")
            }
        }
    }

    private mutating func parseObject() throws(JsonParsingError) -> Json {
        try enterContainer()
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return Json(storage: .object(JsonObject()))
        }
        if memberStack == nil || fingerprintStack == nil {
            memberStack = JsonParseStack()
            fingerprintStack = JsonParseStack()
        }
        let base = memberStack?.count ?? 0
        let fingerprintBase = fingerprintStack?.count ?? 0
        while true {
            skipWhitespace()
            guard position < bytes.count else {
                throw error(.unexpectedEnd, expected: "a string key")
            }
            guard bytes[position] == UInt8(ascii: "\"") else {
                throw error(.unexpectedCharacter, expected: "a string key")
            }
            let (key, fingerprint) = try parseKey()
            fingerprintStack?.push(fingerprint)
            skipWhitespace()
            guard position < bytes.count else {
                throw error(.unexpectedEnd, expected: "':' after an object key")
            }
            guard bytes[position] == UInt8(ascii: ":") else {
                throw error(.unexpectedCharacter, expected: "':' after an object key")
            }
            position += 1
            let member = JsonMember(key: key, value: try parseValue())
            memberStack?.push(member)
            skipWhitespace()
            guard position < bytes.count else {
                throw error(.unexpectedEnd, expected: "',' or '}' after an object member")
            }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                var object = JsonObject(parsedEntries: memberStack?.popElements(from: base) ?? [])
                let finished: Void? = fingerprintStack?.withElements(from: fingerprintBase) {
                    object.finishParsing(fingerprints: $0)
                }
                if finished == nil {
                    object.finishParsing()
                }
                fingerprintStack?.removeElements(from: fingerprintBase)
                return Json(storage: .object(object))
            default:
                throw error(.unexpectedCharacter, expected: "',' or '}' after an object member")
            }
        }
    }

    // MARK: Errors

    /// An error saying what was expected and what was found at the current position.
    func error(_ reason: JsonParsingError.Reason, expected: String) -> JsonParsingError {
        error(reason, message: "Expected \(expected) but found \(foundDescription(at: position))", at: position)
    }

    /// An error with a message, at a byte offset; line and column are computed here.
    func error(_ reason: JsonParsingError.Reason, message: String, at offset: Int) -> JsonParsingError {
        var line = 1
        var column = 1
        var index = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
        let end = min(offset, bytes.count)
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return JsonParsingError(reason: reason, message: message, line: line, column: column, offset: offset)
    }

    /// Describes the byte at `offset` for an error message.
    func foundDescription(at offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the input" }
        let byte = bytes[offset]
        if byte >= 0x20 && byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x\(hex.count == 1 ? "0" : "")\(hex)"
    }
}

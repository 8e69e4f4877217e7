import Foundation

// A validated JSON document laid out for typed decoding.
//
// Design and data layout
// ----------------------
// `TypedJsonDecoder` does not build `Json` values. It validates the whole document once with `JsonParser`'s
// string and number scanners (so invalid JSON fails before any value is decoded, as with `JSONDecoder`) and
// records one `Node` per value in document order, a "tape":
//
// - a scalar node keeps the byte range of its text: a string's content between the quotes (and whether it has
//   escapes), a number's text (and whether it is an integer), nothing more. Strings and numbers are converted
//   only when a type asks for them, so members nobody decodes cost nothing beyond validation;
// - an array node keeps its element count and the index of the node after its last descendant, so skipping a
//   whole subtree is one read;
// - an object node keeps its member count and the index after it; its members follow as key node, value node(s).
//   `needsKeyTable` says that member lookup must go through decoded keys (a key with escapes, a repeated key, or
//   a large object); otherwise keys are compared as raw bytes with the coding key's UTF-8. `hint` remembers
//   where the last lookup ended, so members read in document order are found at the first comparison.
//
// The tape is a copy of the input plus the nodes, both allocated once and held through plain pointers (so reading
// them costs no reference counting); a `JsonTape.Owner` frees them when the last decoder or container that a
// type may keep beyond `decode` goes away.
struct JsonTape {
    enum Kind: UInt8 {
        case null, `false`, `true`, integer, decimal, string, escapedString, array, object
    }

    /// One value: 16 bytes, with offsets and counts as 32-bit numbers (`TypedJsonDecoder` takes documents below
    /// 4 GiB, so every offset, count and node index fits).
    struct Node {
        var kind: Kind
        /// For objects: member lookup must use decoded keys.
        var needsKeyTable = false
        /// For objects: the offset from the object's node to the key where the next lookup starts, 0 for none.
        var hint: UInt32 = 0
        private var storedFirst: UInt32
        private var storedSecond: UInt32

        init(kind: Kind, first: Int, second: Int) {
            self.kind = kind
            storedFirst = UInt32(truncatingIfNeeded: first)
            storedSecond = UInt32(truncatingIfNeeded: second)
        }

        /// Scalars: the offset of the first byte of the text (past the opening quote for strings).
        /// Containers: the number of elements or members.
        var first: Int {
            get { Int(storedFirst) }
            set { storedFirst = UInt32(truncatingIfNeeded: newValue) }
        }

        /// Scalars: the offset just past the text (the closing quote for strings).
        /// Containers: the index of the node after the container's last descendant.
        var second: Int {
            get { Int(storedSecond) }
            set { storedSecond = UInt32(truncatingIfNeeded: newValue) }
        }

        var isContainer: Bool { kind == .array || kind == .object }
    }

    let bytes: UnsafeMutableRawBufferPointer
    /// The nodes, the root first, then a null node that stands for absent values (see `nullNode`). Read and
    /// written through a pointer: the tape is only used by the decoding it was built for, on one thread.
    let nodes: UnsafeMutableBufferPointer<Node>

    /// A null node after the document's nodes, for a `superDecoder` of a key the object does not have.
    var nullNode: Int { nodes.count - 1 }

    /// The largest document a tape holds: its offsets are 32-bit.
    static let maximumSize = Int(UInt32.max) - 1

    /// Copies and validates `input` (at most `maximumSize` bytes); a leading UTF-8 byte order mark is skipped.
    init(copying input: UnsafeRawBufferPointer, maximumDepth: Int) throws(JsonParsingError) {
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(input.count, 1), alignment: 8)
        bytes.copyMemory(from: input)
        var builder = Builder(
            parser: JsonParser(
                bytes: UnsafeRawBufferPointer(rebasing: bytes[0..<input.count]), maximumDepth: maximumDepth),
            capacity: input.count / 8 + 16)
        do {
            try builder.parseDocument()
        } catch {
            builder.nodes.deallocate()
            bytes.deallocate()
            throw error
        }
        builder.append(Node(kind: .null, first: 0, second: 0))
        // The builder's buffer becomes the tape's: its unused capacity is never touched, so it costs no copy.
        nodes = UnsafeMutableBufferPointer(start: builder.nodes, count: builder.nodeCount)
    }

    /// Frees the tape's memory when the last decoder using it is gone.
    final class Owner {
        let tape: JsonTape

        init(_ tape: JsonTape) {
            self.tape = tape
        }

        deinit {
            tape.bytes.deallocate()
            tape.nodes.deallocate()
        }
    }

    /// The index of the node after `index` and its descendants.
    @inline(__always)
    func next(after index: Int) -> Int {
        let node = nodes[index]
        return node.isContainer ? node.second : index + 1
    }

    /// The raw bytes of a scalar node's text.
    @inline(__always)
    func text(of node: Node) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[node.first..<node.second])
    }

    /// Whether a scalar node's text is exactly `other`.
    @inline(__always)
    func text(of node: Node, equals other: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = other.count
        guard node.second - node.first == count else { return false }
        guard let base = bytes.baseAddress, let otherBase = other.baseAddress else { return count == 0 }
        return Self.bytes(base + node.first, equal: UnsafeRawPointer(otherBase), count: count)
    }

    /// Whether the `count` bytes at `left` and `right` are equal, compared a word at a time without reading past
    /// either (the last word of a run of eight or more overlaps the one before it).
    @inline(__always)
    static func bytes(_ left: UnsafeRawPointer, equal right: UnsafeRawPointer, count: Int) -> Bool {
        if count >= 8 {
            var offset = 0
            while offset + 8 < count {
                guard
                    left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                        == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                else { return false }
                offset += 8
            }
            return left.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                == right.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        }
        if count >= 4 {
            return left.loadUnaligned(as: UInt32.self) == right.loadUnaligned(as: UInt32.self)
                && left.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                    == right.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        }
        if count >= 2 {
            return left.loadUnaligned(as: UInt16.self) == right.loadUnaligned(as: UInt16.self)
                && left.load(fromByteOffset: count - 1, as: UInt8.self)
                    == right.load(fromByteOffset: count - 1, as: UInt8.self)
        }
        return count == 0 || left.load(as: UInt8.self) == right.load(as: UInt8.self)
    }

    /// A parser positioned at `offset`, for decoding a string with escapes or a number's digits again.
    func parser(at offset: Int) -> JsonParser {
        var parser = JsonParser(bytes: UnsafeRawBufferPointer(bytes), maximumDepth: 1)
        parser.position = offset
        return parser
    }

    /// The string value of a string node (content or key).
    func string(at index: Int) -> String {
        let node = nodes[index]
        if node.kind == .escapedString {
            var parser = parser(at: node.first - 1)
            // The string was validated when the tape was built, so decoding it again cannot fail.
            if let string = try? parser.parseString() { return string }
        }
        return String(decoding: text(of: node), as: UTF8.self)
    }

    /// Builds the nodes with `JsonParser`'s scanners.
    private struct Builder {
        var parser: JsonParser
        /// The nodes so far, `nodeCount` of `capacity` initialized; grown by doubling.
        var nodes: UnsafeMutablePointer<Node>
        var nodeCount = 0
        var capacity: Int
        /// The fingerprints (`JsonKeyCache.Summary.fingerprint`) of the keys of the open objects.
        let keyFingerprints = JsonParseStack<UInt64>()

        init(parser: JsonParser, capacity: Int) {
            self.parser = parser
            self.capacity = capacity
            nodes = UnsafeMutablePointer.allocate(capacity: capacity)
        }

        @inline(__always)
        mutating func append(_ node: Node) {
            if nodeCount == capacity {
                grow()
            }
            (nodes + nodeCount).initialize(to: node)
            nodeCount += 1
        }

        private mutating func grow() {
            let larger = UnsafeMutablePointer<Node>.allocate(capacity: capacity * 2)
            larger.moveInitialize(from: nodes, count: nodeCount)
            nodes.deallocate()
            nodes = larger
            capacity *= 2
        }

        mutating func parseDocument() throws(JsonParsingError) {
            let bytes = parser.bytes
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
                parser.position = 3
            }
            try parseValue()
            parser.skipWhitespace()
            guard parser.position == bytes.count else {
                throw parser.error(.unexpectedCharacter, expected: "the end of the document")
            }
        }

        mutating func parseValue() throws(JsonParsingError) {
            parser.skipWhitespace()
            guard parser.position < parser.bytes.count else {
                throw parser.error(.unexpectedEnd, expected: "a value")
            }
            switch parser.bytes[parser.position] {
            case UInt8(ascii: "\""):
                try appendString()
            case UInt8(ascii: "{"):
                try parseObject()
            case UInt8(ascii: "["):
                try parseArray()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = parser.position
                let parts = try parser.scanNumber()
                append(Node(kind: parts.isInteger ? .integer : .decimal, first: start, second: parser.position))
            case UInt8(ascii: "t"):
                try parser.expectKeyword("true")
                append(Node(kind: .true, first: parser.position - 4, second: parser.position))
            case UInt8(ascii: "f"):
                try parser.expectKeyword("false")
                append(Node(kind: .false, first: parser.position - 5, second: parser.position))
            case UInt8(ascii: "n"):
                try parser.expectKeyword("null")
                append(Node(kind: .null, first: parser.position - 4, second: parser.position))
            default:
                throw parser.error(.unexpectedCharacter, expected: "a value")
            }
        }

        private mutating func appendString() throws(JsonParsingError) {
            let start = parser.position + 1
            let hasEscapes = try parser.skipString()
            append(Node(kind: hasEscapes ? .escapedString : .string, first: start, second: parser.position - 1))
        }

        private mutating func parseArray() throws(JsonParsingError) {
            try parser.enterContainer()
            let index = nodeCount
            append(Node(kind: .array, first: 0, second: 0))
            var count = 0
            parser.skipWhitespace()
            if parser.position < parser.bytes.count, parser.bytes[parser.position] == UInt8(ascii: "]") {
                parser.position += 1
            } else {
                elements: while true {
                    try parseValue()
                    count += 1
                    parser.skipWhitespace()
                    guard parser.position < parser.bytes.count else {
                        throw parser.error(.unexpectedEnd, expected: "',' or ']' after an array element")
                    }
                    switch parser.bytes[parser.position] {
                    case UInt8(ascii: ","):
                        parser.position += 1
                    case UInt8(ascii: "]"):
                        parser.position += 1
                        break elements
                    default:
                        throw parser.error(.unexpectedCharacter, expected: "',' or ']' after an array element")
                    }
                }
            }
            parser.depth -= 1
            nodes[index].first = count
            nodes[index].second = nodeCount
        }

        private mutating func parseObject() throws(JsonParsingError) {
            try parser.enterContainer()
            let index = nodeCount
            append(Node(kind: .object, first: 0, second: 0))
            var count = 0
            var hasEscapedKey = false
            let fingerprintBase = keyFingerprints.count
            parser.skipWhitespace()
            if parser.position < parser.bytes.count, parser.bytes[parser.position] == UInt8(ascii: "}") {
                parser.position += 1
            } else {
                members: while true {
                    parser.skipWhitespace()
                    guard parser.position < parser.bytes.count else {
                        throw parser.error(.unexpectedEnd, expected: "a string key")
                    }
                    guard parser.bytes[parser.position] == UInt8(ascii: "\"") else {
                        throw parser.error(.unexpectedCharacter, expected: "a string key")
                    }
                    try appendString()
                    let key = nodes[nodeCount - 1]
                    hasEscapedKey = hasEscapedKey || key.kind == .escapedString
                    keyFingerprints.push(
                        JsonKeyCache.Summary(of: UnsafeRawBufferPointer(rebasing: parser.bytes[key.first..<key.second]))
                            .fingerprint)
                    parser.skipWhitespace()
                    guard parser.position < parser.bytes.count else {
                        throw parser.error(.unexpectedEnd, expected: "':' after an object key")
                    }
                    guard parser.bytes[parser.position] == UInt8(ascii: ":") else {
                        throw parser.error(.unexpectedCharacter, expected: "':' after an object key")
                    }
                    parser.position += 1
                    try parseValue()
                    count += 1
                    parser.skipWhitespace()
                    guard parser.position < parser.bytes.count else {
                        throw parser.error(.unexpectedEnd, expected: "',' or '}' after an object member")
                    }
                    switch parser.bytes[parser.position] {
                    case UInt8(ascii: ","):
                        parser.position += 1
                    case UInt8(ascii: "}"):
                        parser.position += 1
                        break members
                    default:
                        throw parser.error(.unexpectedCharacter, expected: "',' or '}' after an object member")
                    }
                }
            }
            parser.depth -= 1
            nodes[index].first = count
            nodes[index].second = nodeCount
            nodes[index].needsKeyTable =
                hasEscapedKey || count >= JsonObject.indexThreshold
                || (count > 1 && hasDuplicateKeys(object: index, fingerprintBase: fingerprintBase))
            keyFingerprints.removeElements(from: fingerprintBase)
        }

        /// Whether two keys of the object at `index` (fewer than `JsonObject.indexThreshold` members, none
        /// with escapes) have the same bytes: keys with equal fingerprints are compared byte by byte.
        private func hasDuplicateKeys(object index: Int, fingerprintBase: Int) -> Bool {
            keyFingerprints.withElements(from: fingerprintBase) { fingerprints in
                JsonKeyCache.hasRepeatedKey(fingerprints) { earlier, later in
                    let first = keyNode(member: earlier, object: index)
                    let second = keyNode(member: later, object: index)
                    return text(of: first).elementsEqual(text(of: second))
                }
            }
        }

        /// The key node of a member of the object at `index`.
        private func keyNode(member: Int, object index: Int) -> Node {
            var keyIndex = index + 1
            for _ in 0..<member {
                let valueIndex = keyIndex + 1
                keyIndex = nodes[valueIndex].isContainer ? nodes[valueIndex].second : valueIndex + 1
            }
            return nodes[keyIndex]
        }

        private func text(of node: Node) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: parser.bytes[node.first..<node.second])
        }
    }
}

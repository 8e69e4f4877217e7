import Foundation

/// The `Encoder` that `TypedJsonEncoder` tries first when the output is neither pretty nor sorted: it writes the
/// JSON bytes while the value encodes, with no tree in between.
///
/// Design
/// ------
/// Containers write straight into `output`. Open objects and arrays form a stack (`open`); a container knows
/// its slot and the serial number its object or array was opened with. When a container writes, the containers
/// opened above it (nested containers it handed out earlier) are closed first; when a value's `encode(to:)`
/// returns, everything it opened is closed, and a value that encoded nothing is written as `{}`, as
/// `JSONEncoder` does.
///
/// What cannot be written in one pass marks the encoding with `needsTree`: a key encoded twice in one object
/// (`JSONEncoder` keeps the last value in the first place; keys are told apart by a fingerprint of their length
/// and first and last eight bytes, so two long keys alike at both ends count as one), a container used after a
/// sibling closed it, a single value encoded twice, a super encoder (which writes back when it goes away), or an
/// error thrown from inside a nested value (which a type may catch and go on). Throwing methods then stop the
/// encoding with `DirectEncoder.Fallback`, and `TypedJsonEncoder` encodes the value again with `TreeEncoder`, so
/// the bytes are always those of the tree. A value whose `encode(to:)` has side effects then runs them twice.
final class DirectEncoder: Encoder, SingleValueEncodingContainer {
    /// Thrown to stop a direct encoding that needs the tree; never reaches the caller of `TypedJsonEncoder`.
    struct Fallback: Error {}

    /// An object or array being written.
    struct OpenContainer {
        let isObject: Bool
        let serial: Int
        /// Where this object's key fingerprints start in `keyFingerprints`.
        let fingerprintBase: Int
        var count = 0
    }

    let options: TypedJsonEncoder
    let userInfo: [CodingUserInfoKey: Any]
    let usesDefaultKeys: Bool
    let escapesSlashes: Bool
    // The mutable state is read and written only by the encoding that owns this encoder, on one thread, and no
    // access to it is held across a call that could reach it again: the runtime's exclusivity checks, which
    // would cost a quarter of the encoding time, are left out.
    @exclusivity(unchecked) private var output = JsonByteBuffer(capacity: 4096)
    @exclusivity(unchecked) var path: CodingPathNode = .root
    /// Set when the value must be encoded again with `TreeEncoder`.
    @exclusivity(unchecked) private(set) var needsTree = false
    @exclusivity(unchecked) private var open: [OpenContainer] = []
    @exclusivity(unchecked) private var keyFingerprints: [UInt64] = []
    @exclusivity(unchecked) private var nextSerial = 0
    /// The first slot of `open` that belongs to the value being encoded.
    @exclusivity(unchecked) private var frameBase = 0
    /// Whether the value being encoded has written a single value.
    @exclusivity(unchecked) private var frameHasValue = false

    init(options: TypedJsonEncoder) {
        self.options = options
        userInfo = options.userInfo
        if case .useDefaultKeys = options.keyEncodingStrategy {
            usesDefaultKeys = true
        } else {
            usesDefaultKeys = false
        }
        escapesSlashes = !options.outputFormatting.contains(.withoutEscapingSlashes)
        open.reserveCapacity(32)
        keyFingerprints.reserveCapacity(256)
    }

    deinit {
        output.deallocate()
    }

    /// The bytes written so far.
    var outputBytes: [UInt8] { output.bytes }

    var codingPath: [any CodingKey] { path.keys }

    /// Marks the encoding for the tree and stops it.
    func fallBack() -> Fallback {
        needsTree = true
        return Fallback()
    }

    /// Marks the encoding for the tree; for the methods that cannot throw.
    func markNeedsTree() {
        needsTree = true
    }

    // MARK: Frames and containers

    /// Encodes the top-level value; false when it encoded nothing.
    func encodeTopLevel<Value: Encodable>(_ value: Value) throws -> Bool {
        try encodeFrame(value, path: .root, key: .none)
    }

    /// Writes `value` where the caller has placed it (after a key, a comma or nothing); a value that encodes
    /// nothing is an empty object.
    func encodeValue<Value: Encodable>(
        _ value: Value, path parent: CodingPathNode, key: CodingPathNode.Component
    )
        throws
    {
        if try !encodeFrame(value, path: parent, key: key) {
            append("{}")
        }
    }

    /// Writes `value`: Foundation's types by their strategies, others through their `encode(to:)` in a frame of
    /// their own. False when it wrote nothing.
    private func encodeFrame<Value: Encodable>(
        _ value: Value, path parent: CodingPathNode, key: CodingPathNode.Component
    ) throws -> Bool {
        if Value.self == Date.self || Value.self == Data.self || Value.self == URL.self || Value.self == Decimal.self
            || (!usesDefaultKeys && value is any StringKeyedEncodableDictionary)
        {
            return try encodeThroughTree(value, path: parent, key: key)
        }
        let savedBase = frameBase
        let savedHasValue = frameHasValue
        let savedPath = path
        frameBase = open.count
        frameHasValue = false
        path = parent.appending(key)
        defer {
            frameBase = savedBase
            frameHasValue = savedHasValue
            path = savedPath
        }
        let start = output.count
        do {
            try value.encode(to: self)
        } catch {
            // A type may catch this and go on; the tree encodes what it then means.
            needsTree = true
            throw error
        }
        close(downTo: frameBase)
        return output.count > start
    }

    /// Foundation's types, through the tree encoder's strategies, written as the tree writer writes them.
    @inline(never)
    private func encodeThroughTree<Value: Encodable>(
        _ value: Value, path parent: CodingPathNode, key: CodingPathNode.Component
    ) throws -> Bool {
        let tree = TreeEncoder(options: options, path: parent)
        guard let encoded = try tree.wrap(value, path: parent, key: key) else { return false }
        var writer = EncodedValueWriter(formatting: options.outputFormatting)
        writer.write(encoded)
        writer.output.withUnsafeBufferPointer { output.append(contentsOf: $0) }
        return true
    }

    /// Closes the containers from slot `slot` up.
    private func close(downTo slot: Int) {
        while open.count > slot {
            let container = open.removeLast()
            output.append(container.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
            if container.isObject {
                keyFingerprints.removeLast(keyFingerprints.count - container.fingerprintBase)
            }
        }
    }

    /// Opens an object or array at the top of `open`; returns its slot and serial.
    func openContainer(isObject: Bool) -> (slot: Int, serial: Int) {
        output.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        nextSerial += 1
        open.append(OpenContainer(isObject: isObject, serial: nextSerial, fingerprintBase: keyFingerprints.count))
        return (open.count - 1, nextSerial)
    }

    /// Makes the container at `slot` the innermost one, closing the ones it handed out, and counts one more
    /// member or element; false when it was closed already.
    func prepareWrite(slot: Int, serial: Int) -> Bool {
        guard slot >= frameBase, slot < open.count, open[slot].serial == serial else { return false }
        if open.count > slot + 1 {
            close(downTo: slot + 1)
        }
        if open[slot].count > 0 {
            output.append(UInt8(ascii: ","))
        }
        open[slot].count += 1
        return true
    }

    /// The number of elements written into the container at `slot`, if it is still open.
    func count(slot: Int, serial: Int) -> Int? {
        guard slot < open.count, open[slot].serial == serial else { return nil }
        return open[slot].count
    }

    /// Writes `"key":` for the object at `slot`; false when the object already has the key.
    func writeKey(_ key: String, slot: Int) -> Bool {
        var key = key
        let fingerprint = key.withUTF8 { utf8 in
            JsonWriter.appendString(utf8, escapingSlashes: escapesSlashes, to: &output)
            return Self.fingerprint(of: utf8)
        }
        output.append(UInt8(ascii: ":"))
        let base = open[slot].fingerprintBase
        if keyFingerprints.count > base, keyFingerprints[base...].contains(fingerprint) {
            // The same key, or (rarely) another with the same fingerprint: the tree decides.
            return false
        }
        keyFingerprints.append(fingerprint)
        return true
    }

    /// The length of a key and its first and last eight bytes, mixed; equal keys have equal fingerprints.
    private static func fingerprint(of text: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let count = text.count
        var head: UInt64 = 0
        var tail: UInt64 = 0
        if count >= 8, let base = text.baseAddress {
            head = UnsafeRawPointer(base).loadUnaligned(as: UInt64.self)
            tail = UnsafeRawPointer(base + count - 8).loadUnaligned(as: UInt64.self)
        } else {
            for byte in text {
                head = head << 8 | UInt64(byte)
            }
        }
        return head &* 0x9E37_79B9_7F4A_7C15 ^ tail ^ UInt64(truncatingIfNeeded: count) &<< 56
    }

    /// The JSON key for `key` under the key strategy; `path` is the container's.
    func jsonKey(_ key: some CodingKey, path: CodingPathNode) -> String {
        if usesDefaultKeys {
            return key.stringValue
        }
        switch options.keyEncodingStrategy {
        case .convertToSnakeCase:
            return TreeEncoder.snakeCase(key.stringValue)
        case .custom(let convert):
            return convert(path.keys + [key]).stringValue
        default:
            return key.stringValue
        }
    }

    // MARK: Scalars

    func append(_ text: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    func writeString(_ string: String) {
        JsonWriter.appendString(string, escapingSlashes: escapesSlashes, to: &output)
    }

    func writeInteger(_ value: Int64) {
        JsonWriter.appendInteger(value.magnitude, isNegative: value < 0, to: &output)
    }

    func writeInteger(_ value: UInt64) {
        JsonWriter.appendInteger(value, isNegative: false, to: &output)
    }

    /// A float's text as `JSONEncoder` writes it, or a non-conforming one's string; throws before writing
    /// anything when the strategy does not allow it.
    func checkedNumber<Float: BinaryFloatingPoint & CustomStringConvertible>(
        _ number: Float, path: CodingPathNode, key: CodingPathNode.Component
    ) throws -> String {
        if number.isFinite {
            return number.description
        }
        guard
            case .convertToString(let positiveInfinity, let negativeInfinity, let nan) =
                options.nonConformingFloatEncodingStrategy
        else {
            throw EncodingError.invalidValue(
                number,
                EncodingError.Context(
                    codingPath: path.keys(appending: key),
                    debugDescription: "Unable to encode \(Float.self).\(number) directly in JSON."))
        }
        return number.isNaN ? nan : number > 0 ? positiveInfinity : negativeInfinity
    }

    /// Writes what `checkedNumber` gave for `number`: digits without a trailing `.0`, or a quoted string.
    func writeNumber<Float: BinaryFloatingPoint>(_ text: String, of number: Float) {
        guard number.isFinite else {
            writeString(text)
            return
        }
        var text = text
        text.withUTF8 { utf8 in
            let hasPointZero =
                utf8.count >= 2 && utf8[utf8.count - 2] == UInt8(ascii: ".")
                && utf8[utf8.count - 1] == UInt8(ascii: "0")
            output.append(
                contentsOf: UnsafeBufferPointer(rebasing: utf8[..<(hasPointZero ? utf8.count - 2 : utf8.count)]))
        }
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(
            DirectKeyedContainer<Key>(encoder: self, position: frameContainer(isObject: true), path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        DirectUnkeyedContainer(encoder: self, position: frameContainer(isObject: false), path: path)
    }

    /// The value's object or array: opened now, or the one it opened before; nil (and the tree) when the value
    /// already wrote something else.
    private func frameContainer(isObject: Bool) -> (slot: Int, serial: Int)? {
        if open.count > frameBase {
            guard open[frameBase].isObject == isObject else {
                markNeedsTree()
                return nil
            }
            close(downTo: frameBase + 1)
            return (frameBase, open[frameBase].serial)
        }
        guard !frameHasValue else {
            markNeedsTree()
            return nil
        }
        return openContainer(isObject: isObject)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        self
    }

    // MARK: SingleValueEncodingContainer

    /// Starts the value's single value; false (and the tree) when it already wrote one or opened a container.
    private func beginSingleValue() throws {
        guard !frameHasValue, open.count == frameBase else { throw fallBack() }
        frameHasValue = true
    }

    func encodeNil() throws {
        try beginSingleValue()
        append("null")
    }

    func encode(_ value: Bool) throws {
        try beginSingleValue()
        append(value ? "true" : "false")
    }

    func encode(_ value: String) throws {
        try beginSingleValue()
        writeString(value)
    }

    func encode(_ value: Double) throws {
        let text = try checkedNumber(value, path: path, key: .none)
        try beginSingleValue()
        writeNumber(text, of: value)
    }

    func encode(_ value: Float) throws {
        let text = try checkedNumber(value, path: path, key: .none)
        try beginSingleValue()
        writeNumber(text, of: value)
    }

    func encode(_ value: Int) throws { try encodeInteger(Int64(value)) }
    func encode(_ value: Int8) throws { try encodeInteger(Int64(value)) }
    func encode(_ value: Int16) throws { try encodeInteger(Int64(value)) }
    func encode(_ value: Int32) throws { try encodeInteger(Int64(value)) }
    func encode(_ value: Int64) throws { try encodeInteger(value) }
    func encode(_ value: UInt) throws { try encodeInteger(UInt64(value)) }
    func encode(_ value: UInt8) throws { try encodeInteger(Int64(value)) }
    func encode(_ value: UInt16) throws { try encodeInteger(Int64(value)) }
    func encode(_ value: UInt32) throws { try encodeInteger(Int64(value)) }
    func encode(_ value: UInt64) throws { try encodeInteger(value) }

    private func encodeInteger(_ value: Int64) throws {
        try beginSingleValue()
        writeInteger(value)
    }

    private func encodeInteger(_ value: UInt64) throws {
        try beginSingleValue()
        writeInteger(value)
    }

    func encode<Value: Encodable>(_ value: Value) throws {
        try beginSingleValue()
        try encodeValue(value, path: path, key: .none)
    }
}

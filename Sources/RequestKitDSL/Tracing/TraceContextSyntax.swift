import Foundation

/// The W3C Trace Context (Level 1) syntax of `traceparent` and `tracestate`: parsing, checking and making ids.
enum TraceContextSyntax {
    /// The fields of a valid `traceparent`.
    struct TraceParent: Equatable {
        let traceID: String
        let parentID: String
        let isSampled: Bool
    }

    enum Parsed: Equatable {
        case valid(TraceParent)
        case invalid(String)
    }

    /// A header value without the optional whitespace around it.
    static func trimmed(_ value: String) -> String {
        value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
    }

    /// Reads a `traceparent`: `version-traceid-parentid-flags`, each lowercase hex of 2, 32, 16 and 2 digits;
    /// version `ff`, and an all-zero trace or parent id, are invalid. Version `00` has exactly those four fields; a
    /// later version may add fields after a `-`.
    static func parse(traceparent: String) -> Parsed {
        let fields = trimmed(traceparent).split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 4 else { return .invalid("it must have four fields separated by \"-\"") }
        let (version, traceID, parentID, flags) = (fields[0], fields[1], fields[2], fields[3])
        guard isLowercaseHex(version, count: 2) else { return .invalid("the version must be 2 lowercase hex digits") }
        guard version != "ff" else { return .invalid("version ff is forbidden") }
        guard version != "00" || fields.count == 4 else { return .invalid("version 00 has exactly four fields") }
        guard isLowercaseHex(traceID, count: 32), traceID.contains(where: { $0 != "0" }) else {
            return .invalid("the trace-id must be 32 lowercase hex digits, not all zero")
        }
        guard isLowercaseHex(parentID, count: 16), parentID.contains(where: { $0 != "0" }) else {
            return .invalid("the parent-id must be 16 lowercase hex digits, not all zero")
        }
        guard isLowercaseHex(flags, count: 2), let flagBits = UInt8(flags, radix: 16) else {
            return .invalid("the trace-flags must be 2 lowercase hex digits")
        }
        return .valid(TraceParent(traceID: traceID, parentID: parentID, isSampled: flagBits & 1 == 1))
    }

    /// Why a `tracestate` breaks the rules, or nil: at most 32 comma-separated `key=value` members (empty ones
    /// allowed), each key once; a key is a lowercase letter then up to 255 of `a-z 0-9 _ - * /`, or
    /// `tenant@system` (a letter or digit then up to 240, and a letter then up to 13); a value is up to 256
    /// printable ASCII characters other than `,` and `=`, spaces allowed inside but not at the end.
    static func problem(inTraceState state: String) -> String? {
        let quoted = state.debugDescription
        var keys = Set<String>()
        for member in state.split(separator: ",", omittingEmptySubsequences: false) {
            let member = trimmed(String(member))
            if member.isEmpty { continue }
            guard let equals = member.firstIndex(of: "=") else {
                return "the tracestate \(quoted) has a member without \"=\": \(member.debugDescription)"
            }
            let key = String(member[..<equals])
            let value = String(member[member.index(after: equals)...])
            guard isKey(key) else {
                return "the tracestate \(quoted) has an invalid key \(key.debugDescription)"
            }
            guard isValue(value) else {
                return "the tracestate \(quoted) has an invalid value for \(key): \(value.debugDescription)"
            }
            guard keys.insert(key).inserted else { return "the tracestate \(quoted) repeats the key \(key)" }
        }
        if keys.count > 32 { return "the tracestate \(quoted) has \(keys.count) members; at most 32 are allowed" }
        return nil
    }

    /// `bytes` random bytes as lowercase hex, never all zero.
    static func randomID(bytes: Int, using generator: inout some RandomNumberGenerator) -> String {
        var id = [UInt8](repeating: 0, count: bytes)
        while id.allSatisfy({ $0 == 0 }) {
            for index in id.indices { id[index] = generator.next() }
        }
        return id.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }

    private static func isLowercaseHex(_ text: String, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func isKey(_ key: String) -> Bool {
        let parts = key.split(separator: "@", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            return isKeyPart(parts[0], firstIsLetterOnly: true, maxRest: 255)
        case 2:
            return isKeyPart(parts[0], firstIsLetterOnly: false, maxRest: 240)
                && isKeyPart(parts[1], firstIsLetterOnly: true, maxRest: 13)
        default:
            return false
        }
    }

    private static func isKeyPart(_ part: Substring, firstIsLetterOnly: Bool, maxRest: Int) -> Bool {
        let bytes = Array(part.utf8)
        guard let first = bytes.first, bytes.count <= maxRest + 1 else { return false }
        let isLetter = (0x61...0x7A).contains(first)
        guard isLetter || (!firstIsLetterOnly && (0x30...0x39).contains(first)) else { return false }
        return bytes.dropFirst().allSatisfy {
            (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || "_-*/".utf8.contains($0)
        }
    }

    private static func isValue(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count <= 256, let last = bytes.last, last != 0x20 else { return false }
        return bytes.allSatisfy { (0x20...0x7E).contains($0) && $0 != 0x2C && $0 != 0x3D }
    }
}

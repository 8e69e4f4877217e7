import Foundation
import RequestKitModel

/// The status line and header section of an HTTP/1.x response, parsed from untrusted bytes.
///
/// Fields keep their wire order and duplicates (several `Set-Cookie` lines stay several fields). The parser
/// accepts CRLF or a bare LF as a line end, rejects obsolete line folding, header names that are not tokens and
/// values with control characters, and enforces ``Limits``. This file depends only on Foundation, `HTTPSyntax` and
/// `HTTPHeaders` so that the fuzzer can compile it with them alone.
struct ResponseHead: Sendable, Equatable {
    /// One header field as it arrived, without surrounding whitespace: the type a ``Response`` holds, so that the
    /// fields go into one without a copy.
    typealias Field = HTTPHeader

    /// Bounds on what a server may send before the body.
    struct Limits: Sendable, Equatable {
        /// The most bytes the status line and header section may take together, CRLFs included.
        var maxHeadBytes = 64 * 1024
        /// The most header fields a response may carry.
        var maxFields = 100
    }

    /// How the body that follows the head is delimited.
    enum Framing: Sendable, Equatable {
        /// No body: a response to HEAD, a 1xx, 204 or 304.
        case none
        /// Exactly this many bytes.
        case length(Int)
        /// Chunked transfer coding.
        case chunked
        /// Everything until the server closes the connection.
        case untilClose
    }

    /// The minor version of HTTP/1.x: 0 or 1.
    var minorVersion: Int
    /// The status code, 100 to 999.
    var status: Int
    /// The reason phrase, possibly empty.
    var reason: String
    /// The header fields in wire order.
    private(set) var fields: [Field]
    /// Which of the fields that decide framing, decoding and reuse are present: noted as the fields arrive, so that
    /// each response's lookups skip the scan for a field it does not have.
    private(set) var framingFields: FramingFields

    /// Fields whose presence ``framingFields`` records.
    struct FramingFields: OptionSet, Sendable, Equatable {
        let rawValue: UInt8

        static let transferEncoding = FramingFields(rawValue: 1)
        static let contentLength = FramingFields(rawValue: 2)
        static let connection = FramingFields(rawValue: 4)
        static let contentEncoding = FramingFields(rawValue: 8)

        /// The one of these fields `name` (any case) names, if any.
        static func named(_ name: some Collection<UInt8>) -> FramingFields {
            switch name.count {
            case 10 where HTTPSyntax.equalsIgnoringCase(name, "connection".utf8): return .connection
            case 14 where HTTPSyntax.equalsIgnoringCase(name, "content-length".utf8): return .contentLength
            case 16 where HTTPSyntax.equalsIgnoringCase(name, "content-encoding".utf8): return .contentEncoding
            case 17 where HTTPSyntax.equalsIgnoringCase(name, "transfer-encoding".utf8): return .transferEncoding
            default: return []
            }
        }
    }

    init(minorVersion: Int, status: Int, reason: String, fields: [Field]) {
        self.minorVersion = minorVersion
        self.status = status
        self.reason = reason
        self.fields = fields
        framingFields = fields.reduce(into: []) { $0.formUnion(.named($1.name.utf8)) }
    }

    /// The first value of a field, compared case-insensitively.
    func value(of name: String) -> String? {
        fields.first { Self.equalsIgnoringCase($0.name, name) }?.value
    }

    /// Every value of a field, comma-separated lists split, trimmed and lowercased.
    func tokens(of name: String) -> [String] {
        if let known = Self.knownAbsence(of: name, in: framingFields), known { return [] }
        var tokens: [String] = []
        for field in fields where Self.equalsIgnoringCase(field.name, name) {
            Self.forEachToken(in: field.value) { tokens.append(String(decoding: $0, as: UTF8.self).lowercased()) }
        }
        return tokens
    }

    /// Whether `name` is one of the ``FramingFields`` (nil when it is not) and `present` lacks it.
    private static func knownAbsence(of name: String, in present: FramingFields) -> Bool? {
        let field = FramingFields.named(name.utf8)
        return field.isEmpty ? nil : !present.contains(field)
    }

    /// Whether a field's comma-separated values include `token` (lowercase ASCII), compared case-insensitively:
    /// ``tokens(of:)`` without building a string for each.
    func hasToken(_ token: String, in name: String) -> Bool {
        if let known = Self.knownAbsence(of: name, in: framingFields), known { return false }
        var found = false
        for field in fields where !found && Self.equalsIgnoringCase(field.name, name) {
            Self.forEachToken(in: field.value) { element in
                if !found, HTTPSyntax.equalsIgnoringCase(element, token.utf8) { found = true }
            }
        }
        return found
    }

    /// Calls `body` with each non-empty element of a comma-separated list, without the spaces and tabs around it.
    private static func forEachToken(in value: String, _ body: (Substring.UTF8View) -> Void) {
        let utf8 = value.utf8
        var start = utf8.startIndex
        while start < utf8.endIndex {
            let comma = utf8[start...].firstIndex(of: UInt8(ascii: ",")) ?? utf8.endIndex
            var element = value[start..<comma].utf8
            while let first = element.first, first == 0x20 || first == 0x09 { element = element.dropFirst() }
            while let last = element.last, last == 0x20 || last == 0x09 { element = element.dropLast() }
            if !element.isEmpty { body(element) }
            start = comma == utf8.endIndex ? comma : utf8.index(after: comma)
        }
    }

    /// Whether the status is informational (1xx) other than 101 Switching Protocols, after which the final
    /// response follows on the same connection.
    var isInformational: Bool { status >= 100 && status < 200 && status != 101 }

    /// Whether the server allows the connection to carry another request after this response.
    var isKeepAlive: Bool {
        guard framingFields.contains(.connection) else { return minorVersion >= 1 }
        if hasToken("close", in: "Connection") { return false }
        return minorVersion >= 1 || hasToken("keep-alive", in: "Connection")
    }

    /// How the body is delimited (RFC 9112, section 6.3).
    ///
    /// - Parameter isHeadRequest: Whether the request was HEAD, whose response never has a body.
    /// - Throws: ``HTTP1ParseError`` for a bad or conflicting Content-Length, an unsupported transfer coding, or
    ///   both Content-Length and Transfer-Encoding (a sign of response smuggling, which RFC 9112 says ought to be
    ///   handled as an error).
    func framing(isHeadRequest: Bool) throws(HTTP1ParseError) -> Framing {
        if isHeadRequest || (status >= 100 && status < 200) || status == 204 || status == 304 { return .none }
        if hasAmbiguousFraming { throw .contentLengthWithTransferEncoding }
        let transferCodings = framingFields.contains(.transferEncoding) ? tokens(of: "Transfer-Encoding") : []
        if !transferCodings.isEmpty {
            guard transferCodings == ["chunked"] else { throw .unsupportedTransferEncoding }
            return .chunked
        }
        var length: Int?
        if framingFields.contains(.contentLength) {
            for field in fields where Self.equalsIgnoringCase(field.name, "Content-Length") {
                let value = field.value[...]
                // One value, the usual case, needs no list.
                let parts =
                    value.utf8.contains(UInt8(ascii: ","))
                    ? value.split(separator: ",", omittingEmptySubsequences: false) : [value]
                for part in parts {
                    guard let parsed = HTTPSyntax.contentLengthElement(part.utf8) else { throw .invalidContentLength }
                    if let length, length != parsed { throw .conflictingContentLength }
                    length = parsed
                }
            }
        }
        if let length { return .length(length) }
        return .untilClose
    }

    /// Whether a response with both Transfer-Encoding and Content-Length came, after which the connection must
    /// not be reused (RFC 9112, section 6.3).
    var hasAmbiguousFraming: Bool {
        framingFields.isSuperset(of: [.transferEncoding, .contentLength])
    }

    static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        HTTPSyntax.equalsIgnoringCase(a, b)
    }
}

extension ResponseHead {
    /// Parses a response head at the start of `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: The bytes received so far.
    ///   - limits: Bounds on the head's size and field count.
    /// - Returns: The head and the number of bytes it took, or `nil` when the head is not complete yet.
    /// - Throws: ``HTTP1ParseError`` when the bytes cannot be the start of a valid response head, or exceed a
    ///   limit.
    static func parse(
        _ bytes: UnsafeRawBufferPointer, limits: Limits = Limits()
    ) throws(HTTP1ParseError) -> (head: ResponseHead, length: Int)? {
        let count = bytes.count
        // Fail fast on a peer that does not speak HTTP/1.x, whatever follows and however the bytes arrived.
        if count >= 5, !startsWithHTTP(bytes) { throw .invalidStatusLine }
        var lines: [Range<Int>] = []
        lines.reserveCapacity(16)
        var position = 0
        var end: Int?
        while position < count {
            guard let newline = firstNewline(in: bytes, from: position) else { break }
            var lineEnd = newline
            if lineEnd > position, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            if newline + 1 > limits.maxHeadBytes { throw .headTooLarge }
            if lineEnd == position {
                if lines.isEmpty { throw .invalidStatusLine }
                end = newline + 1
                break
            }
            lines.append(position..<lineEnd)
            if lines.count > limits.maxFields + 1 { throw .tooManyHeaders }
            position = newline + 1
        }
        guard let end else {
            if count >= limits.maxHeadBytes { throw .headTooLarge }
            return nil
        }
        var head = try statusLine(bytes, lines[0])
        head.fields.reserveCapacity(lines.count - 1)
        for line in lines.dropFirst() {
            let (field, framingField) = try field(bytes, line)
            head.fields.append(field)
            head.framingFields.formUnion(framingField)
        }
        return (head, end)
    }

    private static func firstNewline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + start, 0x0A, bytes.count - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    private static func startsWithHTTP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 5 && bytes[0] == 0x48 && bytes[1] == 0x54 && bytes[2] == 0x54 && bytes[3] == 0x50
            && bytes[4] == 0x2F
    }

    private static func statusLine(
        _ bytes: UnsafeRawBufferPointer, _ line: Range<Int>
    ) throws(HTTP1ParseError) -> ResponseHead {
        // "HTTP/1.1 200 OK": 12 bytes at least, the reason phrase is optional.
        let start = line.lowerBound
        guard line.count >= 12, startsWithHTTP(UnsafeRawBufferPointer(rebasing: bytes[line])) else {
            throw .invalidStatusLine
        }
        guard bytes[start + 5] == 0x31, bytes[start + 6] == 0x2E, isDigit(bytes[start + 7]) else {
            throw .unsupportedVersion
        }
        guard bytes[start + 8] == 0x20 else { throw .invalidStatusLine }
        var status = 0
        for offset in 9..<12 {
            let byte = bytes[start + offset]
            guard isDigit(byte) else { throw .invalidStatusLine }
            status = status * 10 + Int(byte - 0x30)
        }
        guard status >= 100 else { throw .invalidStatusLine }
        var reason = ""
        if line.count > 12 {
            guard bytes[start + 12] == 0x20 else { throw .invalidStatusLine }
            let phrase = (start + 13)..<line.upperBound
            for index in phrase where isControl(bytes[index]) { throw .invalidStatusLine }
            reason = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[phrase]), as: UTF8.self)
        }
        return ResponseHead(minorVersion: Int(bytes[start + 7] - 0x30), status: status, reason: reason, fields: [])
    }

    private static func field(
        _ bytes: UnsafeRawBufferPointer, _ line: Range<Int>
    ) throws(HTTP1ParseError) -> (Field, FramingFields) {
        let first = bytes[line.lowerBound]
        if first == 0x20 || first == 0x09 { throw .obsoleteLineFolding }
        var colon = line.lowerBound
        while colon < line.upperBound, bytes[colon] != 0x3A {
            guard HTTPSyntax.isTokenByte(bytes[colon]) else { throw .invalidHeaderField }
            colon += 1
        }
        guard colon < line.upperBound, colon > line.lowerBound else { throw .invalidHeaderField }
        var valueStart = colon + 1
        var valueEnd = line.upperBound
        while valueStart < valueEnd, bytes[valueStart] == 0x20 || bytes[valueStart] == 0x09 { valueStart += 1 }
        while valueEnd > valueStart, bytes[valueEnd - 1] == 0x20 || bytes[valueEnd - 1] == 0x09 { valueEnd -= 1 }
        for index in valueStart..<valueEnd where isControl(bytes[index]) { throw .invalidHeaderField }
        let nameBytes = UnsafeRawBufferPointer(rebasing: bytes[line.lowerBound..<colon])
        let name = String(decoding: nameBytes, as: UTF8.self)
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd]), as: UTF8.self)
        return (Field(name: name, value: value), FramingFields.named(nameBytes))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isControl(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != 0x09) || byte == 0x7F }
}

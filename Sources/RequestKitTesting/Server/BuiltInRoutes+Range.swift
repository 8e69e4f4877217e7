import Foundation

extension BuiltInRoutes {
    /// `/range/{n}`: `n` bytes (at most 100 MiB) of the repeating alphabet `abc…z`, honouring a single
    /// `Range: bytes=…` with `206` and `Content-Range`, or `416` when the range cannot be satisfied.
    ///
    /// Every answer carries `Accept-Ranges: bytes` and `ETag: "range{n}"`, so clients can resume downloads.
    func range(_ request: TestRequest, count text: String) -> TestResponse {
        guard let total = Int(text), (0...100 * 1024 * 1024).contains(total) else {
            return Self.badRequest("byte count must be a number from 0 to 104857600, not \"\(text)\"")
        }
        let headers = [
            ("Content-Type", "application/octet-stream"), ("Accept-Ranges", "bytes"), ("ETag", "\"range\(total)\""),
        ]
        guard let header = request.header("Range") else {
            return TestResponse(headers: headers, body: .data(Self.alphabet(0..<total)))
        }
        guard let bounds = Self.byteRange(header, total: total) else {
            return TestResponse(status: 416, headers: headers + [("Content-Range", "bytes */\(total)")])
        }
        return TestResponse(
            status: 206,
            headers: headers + [("Content-Range", "bytes \(bounds.lowerBound)-\(bounds.upperBound - 1)/\(total)")],
            body: .data(Self.alphabet(bounds)))
    }

    /// The bytes of the repeating alphabet at `offsets`.
    static func alphabet(_ offsets: Range<Int>) -> Data {
        Data(offsets.map { UInt8(ascii: "a") + UInt8($0 % 26) })
    }

    /// The half-open byte range selected by a single-range `bytes=` header, or `nil` when unsatisfiable.
    static func byteRange(_ header: String, total: Int) -> Range<Int>? {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("bytes="), !text.contains(",") else { return nil }
        let parts = text.dropFirst("bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let first = parts[0].trimmingCharacters(in: .whitespaces)
        let last = parts[1].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let suffix = Int(last), suffix > 0, total > 0 else { return nil }
            return max(0, total - suffix)..<total
        }
        guard let start = Int(first), start >= 0, start < total else { return nil }
        if last.isEmpty { return start..<total }
        guard let end = Int(last), end >= start else { return nil }
        return start..<(min(end, total - 1) + 1)
    }
}

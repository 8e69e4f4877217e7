/// One byte range of a `Range: bytes=…` request (RFC 9110 §14.1.2), resolved against a body's length, so a cache
/// can answer a range request from a complete stored response with a `206`.
///
/// ```swift
/// #expect(ByteRange("bytes=0-1", length: 10) == ByteRange(first: 0, last: 1))
/// #expect(ByteRange("bytes=-3", length: 10) == ByteRange(first: 7, last: 9))
/// ```
struct ByteRange: Sendable, Hashable {
    let first: Int
    let last: Int

    init(first: Int, last: Int) {
        self.first = first
        self.last = last
    }

    /// The single range `value` asks for within `length` bytes; nil for several ranges, another unit, a range
    /// that cannot be read, or one that starts past the end (which the cache leaves to the server).
    init?(_ value: String, length: Int) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes="), length > 0 else { return nil }
        let spec = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let start = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let end = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        func number(_ text: String) -> Int? {
            guard case .valid(let value) = CacheControl.deltaSeconds(text) else { return nil }
            return value
        }
        if start.isEmpty {
            guard let suffix = number(end), suffix > 0 else { return nil }
            self.init(first: max(0, length - suffix), last: length - 1)
        } else {
            guard let first = number(start), first < length else { return nil }
            if end.isEmpty {
                self.init(first: first, last: length - 1)
            } else {
                guard let last = number(end), last >= first else { return nil }
                self.init(first: first, last: min(last, length - 1))
            }
        }
    }
}

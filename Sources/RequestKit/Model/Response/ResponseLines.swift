import Foundation

/// A response body split into lines of UTF-8 text, ending at LF, CRLF or a lone CR (the terminator is not
/// included). A last line without a terminator is delivered too. Invalid UTF-8 is repaired with U+FFFD.
///
/// ```swift
/// for try await line in try await Request { Url("http://127.0.0.1:8080/stream/3") }.stream().lines {
///     print(line)
/// }
/// ```
public struct ResponseLines: AsyncSequence, Sendable {
    public typealias Element = String

    let base: ResponseBodyStream

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator())
    }

    /// Reads the lines of a ``ResponseLines`` sequence.
    ///
    /// ```swift
    /// var iterator = streaming.lines.makeAsyncIterator()
    /// let first = try await iterator.next()
    /// ```
    public struct Iterator: AsyncIteratorProtocol {
        var base: ResponseBodyStream.Iterator
        var pending: [UInt8] = []
        var position = 0
        var skipLineFeed = false
        var isDone = false

        /// The next line, or nil after the last.
        ///
        /// - Throws: ``RequestError`` when the transfer fails.
        public mutating func next() async throws -> String? {
            while true {
                while position < pending.count {
                    let byte = pending[position]
                    if skipLineFeed {
                        skipLineFeed = false
                        if byte == 10 {
                            pending.removeFirst(position + 1)
                            position = 0
                            continue
                        }
                    }
                    if byte == 10 || byte == 13 {
                        let line = String(decoding: pending[0..<position], as: UTF8.self)
                        pending.removeFirst(position + 1)
                        position = 0
                        skipLineFeed = byte == 13
                        return line
                    }
                    position += 1
                }
                if isDone {
                    guard !pending.isEmpty else { return nil }
                    defer { pending.removeAll() }
                    return String(decoding: pending, as: UTF8.self)
                }
                if let chunk = try await base.next() {
                    pending.append(contentsOf: chunk)
                } else {
                    isDone = true
                }
            }
        }
    }
}

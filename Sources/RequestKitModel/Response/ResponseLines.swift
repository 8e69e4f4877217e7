import Foundation

/// A response body split into lines of UTF-8 text, ending at LF, CRLF or a lone CR (the terminator is not
/// included). A last line without a terminator is delivered too. Invalid UTF-8 is repaired with U+FFFD.
///
/// A line longer than ``ResponseLimits/maxLineBytes`` (8 MiB by default) fails with
/// ``RequestError/Kind/responseTooLarge`` rather than being held whole, whichever way the body is cut into chunks.
///
/// ```swift
/// for try await line in try await Request { Url("http://127.0.0.1:8080/stream/3") }.stream().lines {
///     print(line)
/// }
/// ```
public struct ResponseLines: AsyncSequence, Sendable {
    public typealias Element = String

    let base: ResponseBodyStream
    /// The response head, kept in a limit's error.
    let head: Response?

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), maxLineBytes: base.maxLineBytes, head: head)
    }

    /// Reads the lines of a ``ResponseLines`` sequence.
    ///
    /// ```swift
    /// var iterator = streaming.lines.makeAsyncIterator()
    /// let first = try await iterator.next()
    /// ```
    public struct Iterator: AsyncIteratorProtocol {
        var base: ResponseBodyStream.Iterator
        let maxLineBytes: Int
        let head: Response?
        /// The bytes received and not yet delivered start at `start`; those before it are delivered lines, dropped
        /// once per chunk (not per line, which would move the rest of the chunk each time).
        var pending: [UInt8] = []
        var start = 0
        /// How far past `start` the current line has been searched for a terminator.
        var searched = 0
        var skipLineFeed = false
        var isDone = false

        init(base: ResponseBodyStream.Iterator, maxLineBytes: Int, head: Response?) {
            self.base = base
            self.maxLineBytes = maxLineBytes
            self.head = head
        }

        /// The next line, or nil after the last.
        ///
        /// - Throws: ``RequestError`` when the transfer fails, or of kind ``RequestError/Kind/responseTooLarge``
        ///   when a line is longer than ``ResponseLimits/maxLineBytes``.
        public mutating func next() async throws -> String? {
            while true {
                if skipLineFeed, start < pending.count {
                    skipLineFeed = false
                    if pending[start] == 10 { start += 1 }
                }
                if let end = terminator(from: start + searched) {
                    guard end - start <= maxLineBytes else { throw lineTooLong() }
                    let line = String(decoding: pending[start..<end], as: UTF8.self)
                    skipLineFeed = pending[end] == 13
                    start = end + 1
                    searched = 0
                    return line
                }
                searched = pending.count - start
                guard searched <= maxLineBytes else { throw lineTooLong() }
                if isDone {
                    guard start < pending.count else { return nil }
                    defer { start = pending.count }
                    return String(decoding: pending[start...], as: UTF8.self)
                }
                if start > 0 {
                    pending.removeFirst(start)
                    start = 0
                }
                if let chunk = try await base.next() {
                    pending.append(contentsOf: chunk)
                } else {
                    isDone = true
                }
            }
        }

        /// Ends the transfer, whose connection closes, and returns the error for a line over the limit.
        private func lineTooLong() -> RequestError {
            base.terminate()
            return RequestError.lineTooLong(limit: maxLineBytes, response: head)
        }

        /// The index of the first LF or CR at or after `index`.
        private func terminator(from index: Int) -> Int? {
            guard index < pending.count else { return nil }
            return pending.withUnsafeBufferPointer { bytes in
                bytes[index...].firstIndex { $0 == 10 || $0 == 13 }
            }
        }
    }
}

/// The bytes received on one connection and not yet parsed, handed out as lines or fixed-size blocks.
///
/// Parsing is retried from a saved position when more bytes arrive: a read that needs bytes not yet received
/// throws ``ConnectionEnd/needMore``, and the caller rewinds to where it started. Used only by its connection's
/// loop thread.
///
/// ```swift
/// let reader = ConnectionReader()
/// reader.append(bytes)
/// let line = try reader.readLine(limit: 8192, tooLong: error)
/// ```
final class ConnectionReader {
    private var buffer: [UInt8] = []
    /// The offset of the first byte not yet consumed.
    private(set) var start = 0

    /// The number of bytes received but not yet consumed.
    var bufferedCount: Int { buffer.count - start }

    /// Adds received bytes, dropping the consumed ones first when they are most of the buffer.
    func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Goes back to `position` (a value of ``start``), to parse again once more bytes have arrived.
    func rewind(to position: Int) {
        start = position
    }

    /// Releases the buffer's memory once nothing is left in it.
    func compact() {
        guard bufferedCount == 0 else { return }
        buffer = []
        start = 0
    }

    /// Whether `bytes` occur in the buffered bytes from `offset` (a value of ``start`` plus a count) on.
    func contains(_ bytes: [UInt8], from offset: Int) -> Bool {
        var index = max(offset, start)
        while index + bytes.count <= buffer.count {
            if buffer[index] == bytes[0], buffer[index..<(index + bytes.count)].elementsEqual(bytes) { return true }
            index += 1
        }
        return false
    }

    /// Whether the buffered bytes begin with `prefix`: `nil` while they are a shorter beginning of it.
    func begins(with prefix: [UInt8]) -> Bool? {
        let count = min(prefix.count, bufferedCount)
        guard buffer[start..<(start + count)].elementsEqual(prefix[0..<count]) else { return false }
        return count == prefix.count ? true : nil
    }

    /// The offset just past the last buffered byte.
    var end: Int { buffer.count }

    /// Reads one CRLF-terminated line and returns it without the CRLF.
    ///
    /// - Parameters:
    ///   - limit: The most bytes the line (with its CRLF) may take.
    ///   - tooLong: The error thrown when the line exceeds `limit`.
    /// - Throws: `tooLong`, an ``HTTPRequestError`` for a bare CR or LF, or ``ConnectionEnd/needMore``.
    func readLine(limit: Int, tooLong: HTTPRequestError) throws -> ArraySlice<UInt8> {
        guard let newline = buffer[start...].firstIndex(of: 10) else {
            guard bufferedCount <= limit else { throw tooLong }
            throw ConnectionEnd.needMore
        }
        guard newline - start + 1 <= limit else { throw tooLong }
        guard newline > start, buffer[newline - 1] == 13 else {
            throw HTTPRequestError(status: 400, message: "line ends with a bare LF instead of CRLF")
        }
        let line = buffer[start..<(newline - 1)]
        if line.contains(13) {
            throw HTTPRequestError(status: 400, message: "bare CR inside a line")
        }
        start = newline + 1
        return line
    }

    /// Reads exactly `count` bytes.
    ///
    /// - Throws: ``ConnectionEnd/needMore`` when they have not all arrived.
    func read(count: Int) throws -> ArraySlice<UInt8> {
        guard bufferedCount >= count else { throw ConnectionEnd.needMore }
        defer { start += count }
        return buffer[start..<(start + count)]
    }

    /// Removes any CR LF pairs waiting before the next request, as RFC 9112 allows servers to.
    func skipEmptyLines() {
        while bufferedCount >= 2, buffer[start] == 13, buffer[start + 1] == 10 {
            start += 2
        }
    }
}

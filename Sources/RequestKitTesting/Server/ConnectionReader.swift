import Foundation

/// Buffers bytes read from one connection and hands them out as lines or fixed-size blocks, with timeouts.
///
/// Used only by its connection's thread.
///
/// ```swift
/// let reader = ConnectionReader(socket: socket, isStopping: { core.isStopped })
/// let line = try reader.readLine(limit: 8192, timeout: .seconds(10), tooLong: error)
/// ```
final class ConnectionReader {
    private let socket: ConnectionStream
    private let isStopping: () -> Bool
    private var buffer: [UInt8] = []
    private var start = 0

    init(socket: ConnectionStream, isStopping: @escaping () -> Bool) {
        self.socket = socket
        self.isStopping = isStopping
    }

    /// The number of bytes received but not yet consumed.
    var bufferedCount: Int { buffer.count - start }

    /// Reads more bytes into the buffer, waiting up to `timeout`.
    ///
    /// - Throws: ``ConnectionEnd`` when the client closes, nothing arrives in time, or the server stops.
    func fill(timeout: Duration) throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if isStopping() { throw ConnectionEnd.stopping }
            let remaining = clock.now.duration(to: deadline)
            if remaining <= .zero { throw ConnectionEnd.timedOut }
            // `TestServer.stop()` shuts the connection down, which wakes this wait at once; the one-second cap only
            // bounds a wait that the platform does not wake, so hundreds of idle connections cost no busy polling.
            switch socket.waitForReadable(milliseconds: min(remaining, .seconds(1)).pollMilliseconds) {
            case .timedOut: continue
            case .hungUp: throw ConnectionEnd.closed
            case .readable: break
            }
            if start > 0 && start >= buffer.count / 2 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            let received = withUnsafeTemporaryAllocation(byteCount: 64 * 1024, alignment: 1) { scratch -> Int? in
                guard let count = socket.receive(into: scratch), count > 0 else { return nil }
                buffer.append(contentsOf: scratch[0..<count])
                return count
            }
            guard received != nil else { throw ConnectionEnd.closed }
            return
        }
    }

    /// Reads one CRLF-terminated line and returns it without the CRLF.
    ///
    /// - Parameters:
    ///   - limit: The most bytes the line (with its CRLF) may take.
    ///   - timeout: How long to wait for each further piece of the line.
    ///   - tooLong: The error thrown when the line exceeds `limit`.
    /// - Throws: `tooLong`, an ``HTTPRequestError`` for a bare CR or LF, or ``ConnectionEnd``.
    func readLine(limit: Int, timeout: Duration, tooLong: HTTPRequestError) throws -> ArraySlice<UInt8> {
        var searched = start
        while true {
            if let newline = buffer[searched...].firstIndex(of: 10) {
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
            guard bufferedCount <= limit else { throw tooLong }
            searched = buffer.count
            let offset = searched - start
            try fill(timeout: timeout)
            searched = start + offset
        }
    }

    /// Reads exactly `count` bytes.
    ///
    /// - Throws: ``ConnectionEnd`` when the bytes do not all arrive.
    func read(count: Int, timeout: Duration) throws -> ArraySlice<UInt8> {
        while bufferedCount < count {
            try fill(timeout: timeout)
        }
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

#if canImport(CNghttp2) && os(Linux)
import Foundation
import Glibc
import RequestKitTestSupport

extension ScriptedHTTP2Server {
    /// One accepted connection of a ``ScriptedHTTP2Server``, as its script sees it: it writes raw bytes, and reads the
    /// client's frames (after its preface), noting the `HEADERS`, `GOAWAY` and `RST_STREAM` frames in the server's
    /// ``Record``.
    ///
    /// ```swift
    /// guard let stream = connection.nextRequest() else { return }
    /// connection.send(HTTP2FrameBytes.headersFrame(stream: stream, block: HTTP2FrameBytes.status200, endStream: true))
    /// connection.readUntilClosed()
    /// ```
    final class Connection: @unchecked Sendable {
        // Safe: `buffer`, `hasPreface` and `isClosed` are only touched while holding `reader`.
        let descriptor: Int32
        private let server: ScriptedHTTP2Server
        private var buffer: [UInt8] = []
        private var hasPreface = false
        private let reader = NSLock()
        private let backgroundReads = DispatchGroup()
        private var isClosed = false

        init(descriptor: Int32, server: ScriptedHTTP2Server) {
            self.descriptor = descriptor
            self.server = server
        }

        /// Writes `bytes` whole; false when the client is gone.
        @discardableResult
        func send(_ bytes: [UInt8]) -> Bool {
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }

        /// Writes `frame` `count` times over, 64 KB at a time, reading nothing meanwhile; stops early when the client
        /// is gone. Returns how many were written.
        @discardableResult
        func flood(_ frame: [UInt8], count: Int) -> Int {
            let perWrite = min(max(1, 64 * 1024 / frame.count), count)
            var chunk: [UInt8] = []
            chunk.reserveCapacity(perWrite * frame.count)
            for _ in 0..<perWrite { chunk += frame }
            var written = 0
            while written < count {
                let batch = min(perWrite, count - written)
                guard send(batch == perWrite ? chunk : Array(chunk[0..<(batch * frame.count)])) else { break }
                written += batch
            }
            return written
        }

        /// Reads frames until the client opens a stream, and returns its id; nil when the client closes first.
        func nextRequest() -> UInt32? {
            reader.withLock {
                while true {
                    while let frame = nextFrame() {
                        if frame.type == HTTP2FrameBytes.headers { return frame.stream }
                    }
                    guard fill() else { return nil }
                }
            }
        }

        /// Reads until the client closes the connection (or goes quiet for a minute), recording what it says.
        func readUntilClosed() {
            reader.withLock {
                while true {
                    while nextFrame() != nil {}
                    guard fill() else { return }
                }
            }
        }

        /// Reads on a thread of its own until the client closes, recording what it says, while the script goes on
        /// writing: so that what the client says before it gives up is read even when the script's writes block.
        func readInBackground() {
            backgroundReads.enter()
            Thread.detachNewThread { [self] in
                readUntilClosed()
                backgroundReads.leave()
            }
        }

        /// Ends what the server writes (a FIN): the client reads the end of the connection, and what it sends meanwhile
        /// can still be read.
        func endWriting() {
            Glibc.shutdown(descriptor, Int32(SHUT_WR))
        }

        /// Closes the socket, once the reads under way (in the background too) are done.
        func close() {
            Glibc.shutdown(descriptor, Int32(SHUT_WR))
            backgroundReads.wait()
            reader.withLock {
                guard !isClosed else { return }
                isClosed = true
                Glibc.close(descriptor)
            }
        }

        private func fill() -> Bool {
            guard !isClosed else { return false }
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            buffer += chunk[0..<count]
            return true
        }

        /// The next whole frame buffered from the client (after its preface), noting `HEADERS`, `GOAWAY` and
        /// `RST_STREAM`.
        private func nextFrame() -> (type: UInt8, stream: UInt32, payload: [UInt8])? {
            if !hasPreface {
                guard buffer.count >= 24 else { return nil }
                buffer.removeFirst(24)
                hasPreface = true
            }
            guard buffer.count >= 9 else { return nil }
            let length = Int(buffer[0]) << 16 | Int(buffer[1]) << 8 | Int(buffer[2])
            guard buffer.count >= 9 + length else { return nil }
            let type = buffer[3]
            let stream = Self.word(buffer, at: 5) & 0x7fff_ffff
            let payload = Array(buffer[9..<(9 + length)])
            buffer.removeFirst(9 + length)
            switch type {
            case HTTP2FrameBytes.headers:
                server.note { $0.requests += 1 }
            case HTTP2FrameBytes.goAway where payload.count >= 8:
                server.note { $0.goAwayCodes.append(Self.word(payload, at: 4)) }
            case HTTP2FrameBytes.rstStream where payload.count >= 4:
                server.note { $0.resetCodes.append(Self.word(payload, at: 0)) }
            default:
                break
            }
            return (type, stream, payload)
        }

        private static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
            bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
        }
    }
}
#endif

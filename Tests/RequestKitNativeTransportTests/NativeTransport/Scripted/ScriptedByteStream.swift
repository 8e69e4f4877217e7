import Foundation
import RequestKitNativeTransport
import RequestKitSockets

/// A ``ByteStream`` with no socket: what the "server" sends is queued by the test (``deliver(_:)``, ``deliverEnd()``,
/// ``deliverReset()``) or made by a function that never runs dry (``flood``), and what the client writes collects in
/// ``written``. Its descriptor is a number no socket has; a ``ManualReadiness`` reports it readable while bytes (or
/// the end) wait, and writable while ``writeCapacity`` allows.
///
/// ```swift
/// let stream = ScriptedByteStream()
/// stream.deliver("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
/// ```
final class ScriptedByteStream: ByteStream, @unchecked Sendable {
    // Safe: used by one test at a time, from the thread that turns its loop (and the awaiting task, which the test
    // orders with the loop's turns); `lock` guards everything else.
    private let lock = NSLock()
    private var inbound: [UInt8] = []
    private var ending: Ending?
    private var outbound: [UInt8] = []
    private var closed = false
    private var capacity: Int?
    private var reactions: [(trigger: String, answer: [UInt8])] = []
    /// Where the next reaction's trigger is looked for in what the client wrote.
    private var scanStart = 0

    /// How the stream ends once the queued bytes are read.
    enum Ending {
        case close(confirmed: Bool)
        case reset
    }

    /// The descriptor the loop watches: unique, and never a real socket's.
    let descriptor: Int32
    /// Bytes made on demand whenever a read finds nothing queued: a server that never stops sending.
    var flood: (() -> [UInt8])? {
        get { lock.withLock { floodSource } }
        set { lock.withLock { floodSource = newValue } }
    }
    private var floodSource: (() -> [UInt8])?
    /// A peer that answers what the client writes: called with each write's bytes, it returns the bytes to queue
    /// for the client (an in-memory HTTP/2 server, say).
    var peer: (([UInt8]) -> [UInt8])? {
        get { lock.withLock { peerFunction } }
        set { lock.withLock { peerFunction = newValue } }
    }
    private var peerFunction: (([UInt8]) -> [UInt8])?
    /// What the TLS handshake chose, for a stream standing in for TLS.
    var negotiatedApplicationProtocol: String?
    /// How many bytes reads returned in all.
    private(set) var bytesRead = 0

    private static let nextDescriptor = NSLock()
    nonisolated(unsafe) private static var counter: Int32 = 1_000_000

    init() {
        descriptor = Self.nextDescriptor.withLock {
            Self.counter += 1
            return Self.counter
        }
    }

    // MARK: The server's side

    /// Queues bytes for the client to read.
    func deliver(_ bytes: [UInt8]) { lock.withLock { inbound += bytes } }

    /// Queues text for the client to read.
    func deliver(_ text: String) { deliver(Array(text.utf8)) }

    /// Ends the stream once the queued bytes are read; `confirmed` false stands for TLS closed without close_notify.
    func deliverEnd(confirmed: Bool = true) { lock.withLock { ending = .close(confirmed: confirmed) } }

    /// Resets the connection once the queued bytes are read (a read then fails with `ECONNRESET`).
    func deliverReset() { lock.withLock { ending = .reset } }

    /// When the client has written `trigger` (its first occurrence from now on), queues `answer`.
    func answer(_ trigger: String, with answer: String) {
        lock.withLock { reactions.append((trigger, Array(answer.utf8))) }
        react()
    }

    /// When the client has written `trigger`, the stream resets.
    func reset(after trigger: String) {
        lock.withLock { reactions.append((trigger, [])) }
        react()
    }

    /// How many bytes a write may take from now on (nil: any number; 0: none, the socket is full).
    var writeCapacity: Int? {
        get { lock.withLock { capacity } }
        set { lock.withLock { capacity = newValue } }
    }

    /// Everything the client wrote, as text.
    var written: String { lock.withLock { String(decoding: outbound, as: UTF8.self) } }

    /// Everything the client wrote.
    var writtenBytes: [UInt8] { lock.withLock { outbound } }

    /// Whether the client closed the stream.
    var isClosed: Bool { lock.withLock { closed } }

    /// Whether a read would return something now (bytes, the end, or a reset).
    var isReadable: Bool { lock.withLock { !closed && (!inbound.isEmpty || ending != nil || floodSource != nil) } }

    /// Whether a write would take bytes now.
    var isWritable: Bool { lock.withLock { !closed && capacity != 0 } }

    // MARK: ByteStream

    func handshake() throws -> ByteStreamResult { .transferred(0) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> ByteStreamResult {
        try lock.withLock {
            if closed { throw POSIXError(.EBADF) }
            if inbound.isEmpty, let floodSource { inbound = floodSource() }
            if inbound.isEmpty {
                switch ending {
                case nil: return .wouldBlock(.readable)
                case .close: return .endOfStream
                case .reset: throw POSIXError(.ECONNRESET)
                }
            }
            let count = min(buffer.count, inbound.count)
            inbound.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            inbound.removeFirst(count)
            bytesRead += count
            return .transferred(count)
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws -> ByteStreamResult {
        let result: ByteStreamResult = try lock.withLock {
            if closed { throw POSIXError(.EBADF) }
            if case .reset = ending, inbound.isEmpty { throw POSIXError(.EPIPE) }
            let count = min(bytes.count, capacity ?? bytes.count)
            if count == 0 { return .wouldBlock(.writable) }
            outbound += bytes.prefix(count)
            if let capacity { self.capacity = capacity - count }
            return .transferred(count)
        }
        if case .transferred(let count) = result, let peer {
            let answer = peer(Array(bytes.prefix(count)))
            deliver(answer)
        }
        react()
        return result
    }

    var hasBufferedBytes: Bool { false }

    var isReadableNow: Bool { isReadable }

    var isEndUnconfirmed: Bool {
        lock.withLock {
            guard inbound.isEmpty, case .close(let confirmed) = ending else { return false }
            return !confirmed
        }
    }

    func close() { lock.withLock { closed = true } }

    /// Queues the answers whose trigger the client has written.
    private func react() {
        lock.withLock {
            while let first = reactions.first,
                String(decoding: outbound[scanStart...], as: UTF8.self).contains(first.trigger)
            {
                reactions.removeFirst()
                if first.answer.isEmpty {
                    ending = .reset
                } else {
                    inbound += first.answer
                }
                scanStart = outbound.count
            }
        }
    }
}

import Foundation
import RequestKitModel
import RequestKitSockets

/// The bytes of one request still to write: its head (with a small body after it, so that both go out in one
/// packet), then a larger in-memory body, then a body read as it is sent (chunked when its length is unknown). Each
/// ``write(to:budget:)`` writes what the stream takes, up to a budget.
///
/// ```swift
/// var writer = try HTTP1RequestWriter(job)
/// switch try writer.write(to: stream, budget: EventLoop.writeBudget) {
/// case .done: print("request written")
/// case .blocked(let interest): print("wait for", interest)
/// case .budgetSpent: print("go on in the loop's next turn")
/// }
/// ```
struct HTTP1RequestWriter {
    /// How far a call got.
    enum Progress: Equatable {
        /// The whole request is written.
        case done
        /// The stream takes nothing more now: wait for this readiness.
        case blocked(ByteStreamResult.Interest)
        /// The budget is spent with bytes left: go on in the loop's next turn.
        case budgetSpent
    }

    private var head: [UInt8]
    private var headOffset = 0
    private var queued: [Data] = []
    private var queuedOffset = 0
    private let reader: RequestBodyReader?
    private var isReaderDone: Bool
    private var readerBytes = 0
    private let bodyLength: Int?
    /// How many bytes were written.
    private(set) var bytesWritten = 0
    /// Whether the stream has refused bytes at least once: from then on, each write that moves bytes is the
    /// request's progress (a body waiting for room), where writing a request that fits at once is not.
    private(set) var hasWaitedForRoom = false

    /// The request of `job`, its body's reader made afresh (a request sent again sends its body from the start).
    ///
    /// - Throws: ``RequestError`` when the body's reader cannot be made (a file gone).
    init(_ job: RequestJob) throws {
        head = job.head
        if job.body.count <= 16 * 1024 {
            if !job.body.isEmpty { head.append(contentsOf: job.body) }
        } else {
            queued.append(job.body)
        }
        reader = try job.makeBodyReader?()
        isReaderDone = reader == nil
        bodyLength = job.bodyLength
    }

    /// Writes what `stream` takes, up to about `budget` bytes.
    ///
    /// - Throws: ``ExchangeFailure/closedBeforeResponse(_:)`` when the stream is closed or reset,
    ///   ``RequestError`` when the body no longer has its announced length, or what the body's reader throws.
    mutating func write(to stream: any ByteStream, budget: Int) throws -> Progress {
        let limit = bytesWritten &+ max(budget, 1)
        while headOffset < head.count {
            if bytesWritten >= limit { return .budgetSpent }
            let result = try head.withUnsafeBytes { try Self.write($0, from: headOffset, to: stream) }
            guard let count = try moved(result) else { return blocked(result) }
            headOffset += count
        }
        while true {
            while let first = queued.first {
                if queuedOffset == first.count {
                    queued.removeFirst()
                    queuedOffset = 0
                    continue
                }
                if bytesWritten >= limit { return .budgetSpent }
                let result = try first.withUnsafeBytes { try Self.write($0, from: queuedOffset, to: stream) }
                guard let count = try moved(result) else { return blocked(result) }
                queuedOffset += count
            }
            guard !isReaderDone, let reader else { return .done }
            try queueBody(from: reader)
        }
    }

    private mutating func moved(_ result: ByteStreamResult) throws(ExchangeFailure) -> Int? {
        switch result {
        case .transferred(let count):
            bytesWritten += count
            return count
        case .endOfStream: throw .closedBeforeResponse(nil)
        case .wouldBlock: return nil
        }
    }

    private mutating func blocked(_ result: ByteStreamResult) -> Progress {
        hasWaitedForRoom = true
        guard case .wouldBlock(let interest) = result else { return .blocked(.writable) }
        return .blocked(interest)
    }

    private static func write(
        _ bytes: UnsafeRawBufferPointer, from offset: Int, to stream: any ByteStream
    ) throws -> ByteStreamResult {
        do {
            return try stream.write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        } catch let error as POSIXError {
            throw ExchangeFailure.closedBeforeResponse(error)
        }
    }

    /// Queues the next block of a body read as it is sent (chunked when its length is unknown), or its end.
    private mutating func queueBody(from reader: RequestBodyReader) throws {
        if let block = try reader.read(upTo: 64 * 1024) {
            readerBytes += block.count
            if let bodyLength, readerBytes > bodyLength { throw Self.bodyLengthChanged(bodyLength) }
            if bodyLength == nil {
                queued.append(Data((String(block.count, radix: 16) + "\r\n").utf8))
                var framed = block
                framed.append(contentsOf: [0x0D, 0x0A])
                queued.append(framed)
            } else {
                queued.append(block)
            }
            return
        }
        isReaderDone = true
        if let bodyLength, readerBytes != bodyLength { throw Self.bodyLengthChanged(bodyLength) }
        if bodyLength == nil { queued.append(Data("0\r\n\r\n".utf8)) }
    }

    private static func bodyLengthChanged(_ length: Int) -> RequestError {
        RequestError.transport(
            POSIXError(.EIO), detail: "the request body no longer has the \(length) bytes announced in Content-Length")
    }
}

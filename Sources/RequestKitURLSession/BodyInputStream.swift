import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
/// An `InputStream` over a ``RequestBodyReader``, handed to FoundationNetworking as `httpBodyStream`, which
/// pulls from it a block at a time as libcurl sends.
///
/// FoundationNetworking reads only `streamStatus`, `open()`, `hasBytesAvailable` and `read(_:maxLength:)`;
/// `streamError` is overridden because the base implementation traps when there is no error.
final class BodyInputStream: InputStream {
    // FoundationNetworking reads the stream from one queue at a time; `lock` guards the state anyway.
    private let lock = NSLock()
    private let reader: RequestBodyReader
    private var pending = Data()
    private var status: Stream.Status = .notOpen
    private var failure: (any Error)?
    private let failureRecord: BodyReadFailure

    init(reader: RequestBodyReader, failureRecord: BodyReadFailure) {
        self.reader = reader
        self.failureRecord = failureRecord
        super.init(data: Data())
    }

    override var streamStatus: Stream.Status { lock.withLock { status } }

    override var streamError: (any Error)? { lock.withLock { failure } }

    override func open() {
        lock.withLock { if status == .notOpen { status = .open } }
    }

    override func close() {
        lock.withLock { status = .closed }
    }

    override var hasBytesAvailable: Bool {
        lock.withLock { status == .open || status == .reading }
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        lock.withLock {
            guard status == .open || status == .reading, length > 0 else { return status == .error ? -1 : 0 }
            if pending.isEmpty {
                do {
                    guard let block = try reader.read(upTo: max(length, 64 * 1024)) else {
                        status = .atEnd
                        return 0
                    }
                    pending = block
                } catch {
                    failure = error
                    failureRecord.record(RequestError.wrapping(error))
                    status = .error
                    return -1
                }
            }
            let count = min(length, pending.count)
            pending.copyBytes(to: buffer, count: count)
            pending =
                pending.count == count ? Data() : pending.subdata(in: (pending.startIndex + count)..<pending.endIndex)
            return count
        }
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }
}
#endif

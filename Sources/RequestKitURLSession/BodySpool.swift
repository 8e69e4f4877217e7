import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A temporary file that holds response bytes the consumer is not ready for, first in, first out.
///
/// FoundationNetworking cannot pause a transfer (`URLSessionTask.suspend()` does not stop libcurl from
/// receiving), so on Linux the bytes that arrive while a stream's buffer is full are written here and fed back
/// as the consumer drains: memory stays bounded, and the disk holds at most what the consumer lags behind.
///
/// The file is unlinked the moment it is created, so it has no name on disk: it never outlives the process,
/// even one that crashes, and its space is freed when the spool is closed. Used only under its
/// ``TransferRegistry``'s lock.
final class BodySpool {
    private let directory: URL
    private var descriptor: Int32 = -1
    private var writeOffset: Int64 = 0
    private var readOffset: Int64 = 0

    /// Whether bytes are waiting.
    var isEmpty: Bool { readOffset == writeOffset }

    /// How many bytes are waiting: the size the file holds for them.
    var waitingBytes: Int { Int(writeOffset - readOffset) }

    /// A spool whose file, once needed, is created (and at once unlinked) in `directory`.
    init(directory: URL = FileManager.default.temporaryDirectory) {
        self.directory = directory
    }

    deinit { close() }

    /// Appends bytes at the end.
    ///
    /// - Throws: `POSIXError` when the file cannot be created or written.
    func append(_ data: Data) throws {
        let descriptor = try openDescriptor()
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            guard let base = bytes.baseAddress else { return }
            var done = 0
            while done < bytes.count {
                let written = pwrite(descriptor, base + done, bytes.count - done, off_t(writeOffset) + off_t(done))
                if written < 0 {
                    if errno == EINTR { continue }
                    throw Self.lastError()
                }
                done += written
            }
        }
        writeOffset += Int64(data.count)
    }

    /// The oldest waiting bytes, at most `maxCount`, or nil when empty.
    ///
    /// - Throws: `POSIXError` when the file cannot be read.
    func read(upTo maxCount: Int) throws -> Data? {
        guard !isEmpty, descriptor >= 0, maxCount > 0 else { return nil }
        let count = Int(min(Int64(maxCount), writeOffset - readOffset))
        var data = Data(count: count)
        let descriptor = self.descriptor
        let offset = readOffset
        let received = try data.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) -> Int in
            guard let base = bytes.baseAddress else { return 0 }
            while true {
                let received = pread(descriptor, base, count, off_t(offset))
                if received >= 0 { return received }
                if errno != EINTR { throw Self.lastError() }
            }
        }
        guard received > 0 else { return nil }
        if received < count { data.removeSubrange(received..<count) }
        readOffset += Int64(received)
        if isEmpty {
            readOffset = 0
            writeOffset = 0
            _ = ftruncate(descriptor, 0)
        }
        return data
    }

    /// Closes the file, which frees its space.
    func close() {
        if descriptor >= 0 { _ = systemClose(descriptor) }
        descriptor = -1
        readOffset = 0
        writeOffset = 0
    }

    /// The file's descriptor, creating the file on first use and unlinking it at once.
    private func openDescriptor() throws -> Int32 {
        if descriptor >= 0 { return descriptor }
        var template = Array("\(directory.path)/requestkit-spool-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            let descriptor = mkstemp(base)
            if descriptor >= 0 { unlink(base) }
            return descriptor
        }
        guard created >= 0 else { throw Self.lastError() }
        descriptor = created
        return created
    }

    private static func lastError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }

    private func systemClose(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(descriptor)
        #elseif canImport(Musl)
        Musl.close(descriptor)
        #else
        Darwin.close(descriptor)
        #endif
    }
}

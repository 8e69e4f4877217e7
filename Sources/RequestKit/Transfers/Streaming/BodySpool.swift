import Foundation

/// A temporary file that holds response bytes the consumer is not ready for, first in, first out.
///
/// FoundationNetworking cannot pause a transfer (`URLSessionTask.suspend()` does not stop libcurl from
/// receiving), so on Linux the bytes that arrive while a stream's buffer is full are written here and fed back
/// as the consumer drains: memory stays bounded, and the file never grows past `maxBytes`
/// (``ResponseLimits/maxSpoolBytes``); a stream that would need more fails with
/// ``RequestError/Kind/responseTooLarge``. The file is unlinked as soon as it is opened, so nothing is left on
/// disk whatever happens to the process; closing the spool releases the space. Used only under the streaming
/// registry's lock.
final class BodySpool {
    private var handle: FileHandle?
    private let maxBytes: Int
    private var writeOffset: UInt64 = 0
    private var readOffset: UInt64 = 0

    /// A spool whose file may hold at most `maxBytes`.
    init(maxBytes: Int) {
        self.maxBytes = max(0, maxBytes)
    }

    /// Whether bytes are waiting.
    var isEmpty: Bool { readOffset == writeOffset }

    deinit { close() }

    /// Appends bytes at the end.
    ///
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/responseTooLarge`` when the file would pass its
    ///   bound; a file system error when it cannot be written.
    func append(_ data: Data) throws {
        guard writeOffset + UInt64(data.count) <= UInt64(maxBytes) else {
            throw RequestError(
                kind: .responseTooLarge,
                detail: "the stream's consumer fell more than the spool limit of \(maxBytes) bytes behind")
        }
        let handle = try openHandle()
        try handle.seek(toOffset: writeOffset)
        try handle.write(contentsOf: data)
        writeOffset += UInt64(data.count)
    }

    /// The oldest waiting bytes, at most `maxCount`, or nil when empty.
    func read(upTo maxCount: Int) throws -> Data? {
        guard !isEmpty, let handle else { return nil }
        try handle.seek(toOffset: readOffset)
        let count = Int(min(UInt64(max(0, maxCount)), writeOffset - readOffset))
        guard let data = try handle.read(upToCount: count), !data.isEmpty else { return nil }
        readOffset += UInt64(data.count)
        if isEmpty {
            readOffset = 0
            writeOffset = 0
            try handle.truncate(atOffset: 0)
        }
        return data
    }

    /// Closes the file, which frees its space (it has no name left).
    func close() {
        try? handle?.close()
        handle = nil
    }

    /// Opens a new file in the temporary directory, readable only by this user, and unlinks it at once.
    private func openHandle() throws -> FileHandle {
        if let handle { return handle }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "requestkit-spool-\(UUID().uuidString)"
        ).path
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        unlink(path)
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        self.handle = handle
        return handle
    }
}

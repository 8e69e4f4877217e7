import Foundation

/// A temporary file that holds response bytes the consumer is not ready for, first in, first out.
///
/// FoundationNetworking cannot pause a transfer (`URLSessionTask.suspend()` does not stop libcurl from
/// receiving), so on Linux the bytes that arrive while a stream's buffer is full are written here and fed back
/// as the consumer drains: memory stays bounded, and the disk holds at most what the consumer lags behind.
/// The file is deleted when the spool is closed. Used only under the streaming registry's lock.
final class BodySpool {
    private var handle: FileHandle?
    private var url: URL?
    private var writeOffset: UInt64 = 0
    private var readOffset: UInt64 = 0

    /// Whether bytes are waiting.
    var isEmpty: Bool { readOffset == writeOffset }

    deinit { close() }

    /// Appends bytes at the end.
    func append(_ data: Data) throws {
        let handle = try openHandle()
        try handle.seek(toOffset: writeOffset)
        try handle.write(contentsOf: data)
        writeOffset += UInt64(data.count)
    }

    /// The oldest waiting bytes, at most `maxCount`, or nil when empty.
    func read(upTo maxCount: Int) throws -> Data? {
        guard !isEmpty, let handle else { return nil }
        try handle.seek(toOffset: readOffset)
        let count = Int(min(UInt64(maxCount), writeOffset - readOffset))
        guard let data = try handle.read(upToCount: count), !data.isEmpty else { return nil }
        readOffset += UInt64(data.count)
        if isEmpty {
            readOffset = 0
            writeOffset = 0
            try handle.truncate(atOffset: 0)
        }
        return data
    }

    /// Deletes the file.
    func close() {
        try? handle?.close()
        handle = nil
        if let url { try? FileManager.default.removeItem(at: url) }
        url = nil
    }

    private func openHandle() throws -> FileHandle {
        if let handle { return handle }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "requestkit-spool-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forUpdating: url)
        self.url = url
        self.handle = handle
        return handle
    }
}

import Foundation
import RequestKitModel

/// The temporary file a download writes, touched only on a serial queue of its own.
///
/// Creating the file, writing it, `fsync` and the final rename all wait for the disk; on Swift's cooperative pool,
/// which has only as many threads as cores, a few such waits would stall every task in the process. The caller
/// stays suspended instead while the queue waits.
///
/// A ``write(_:)`` returns once the writes before it are done, and the queue writes its chunk while the caller
/// awaits the next one from the network; a write that fails is reported by the next call. At most two chunks are
/// held here at a time: one being written and the one waiting for it.
///
/// ```swift
/// let file = try await DownloadFile.create(at: temporary)
/// for try await chunk in streaming.body { try await file.write(chunk) }
/// try await file.finish(movingTo: destination)  // or, after a failure: await file.discard()
/// ```
final class DownloadFile: @unchecked Sendable {
    // Safe: `handle` and `failure` are read and written on `queue` only.
    private let queue = DispatchQueue(label: "RequestKit.download")
    private let url: URL
    private let writeChunk: @Sendable (FileHandle, Data) throws -> Void
    private var handle: FileHandle?
    private var failure: (any Error)?

    private init(url: URL, writeChunk: @escaping @Sendable (FileHandle, Data) throws -> Void) {
        self.url = url
        self.writeChunk = writeChunk
    }

    /// Creates (or empties) the file at `url` and opens it for writing. `writeChunk` writes one chunk to the open
    /// file; tests replace it to see where and when writes run.
    static func create(
        at url: URL,
        writeChunk: @escaping @Sendable (FileHandle, Data) throws -> Void = { try $0.write(contentsOf: $1) }
    ) async throws -> DownloadFile {
        let file = DownloadFile(url: url, writeChunk: writeChunk)
        try await file.onQueue {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw RequestError.transport(
                    CocoaError(.fileWriteNoPermission), detail: "cannot create \"\(url.path)\"")
            }
            do {
                file.handle = try FileHandle(forWritingTo: url)
            } catch {
                try? FileManager.default.removeItem(at: url)
                throw error
            }
        }
        return file
    }

    /// Hands `chunk` to the queue, once the chunks before it are written; throws the failure of an earlier write.
    func write(_ chunk: Data) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                if let failure = self.failure {
                    continuation.resume(throwing: failure)
                    return
                }
                continuation.resume()
                guard let handle = self.handle else { return }
                do {
                    try self.writeChunk(handle, chunk)
                } catch {
                    self.failure = error
                }
            }
        }
    }

    /// Waits for every write, flushes the file to the disk, closes it and renames it to `destination` in one step.
    func finish(movingTo destination: URL) async throws {
        try await onQueue {
            if let failure = self.failure { throw failure }
            if let handle = self.handle {
                try handle.synchronize()
                try handle.close()
                self.handle = nil
            }
            guard rename(self.url.path, destination.path) == 0 else {
                throw RequestError.transport(
                    POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO),
                    detail: "cannot move the download to \"\(destination.path)\"")
            }
        }
    }

    /// Waits for every write, closes the file and removes it.
    func discard() async {
        try? await onQueue {
            try? self.handle?.close()
            self.handle = nil
            try? FileManager.default.removeItem(at: self.url)
        }
    }

    /// Runs `work` on the queue and returns when it is done.
    private func onQueue(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A streamed body on its way into a ``DiskCacheStore``, never held in memory: the file is written as the body
/// streams, to a temporary file created owner-only, the variant's head first (its body length still 0), then each
/// chunk. When the body has ended, its length is filled in, the key's other stored variants are appended and
/// counted, the file's length is filled in and its CRC-32 appended (combined from the CRCs of its pieces, so that
/// nothing is read back), and the file is renamed into place, as ``DiskCacheStore/store(_:for:)`` does with a whole
/// file. Past `limit` body bytes, or the store's bound, or on a failed write, the temporary file is removed.
///
/// The chunks are written in the task that reads the body, as the store's other files are: a write of a chunk to
/// the page cache, which also holds the stream to the pace of the disk.
///
/// ```swift
/// let sink = DiskCacheBody(store: store, key: key, response: head, limit: 16 << 20)
/// ```
final class DiskCacheBody: CacheBodySink {
    private let store: DiskCacheStore
    private let key: String
    private let response: CachedResponse
    private let limit: Int
    private let temporary: String
    private var descriptor: Int32
    /// Where the body length is in the file.
    private let lengthOffset: Int
    /// The CRC of the head's bytes from the key to the body length, which never change.
    private let headChecksum: CacheChecksum
    /// The CRC of the body so far.
    private var bodyChecksum = CacheChecksum()
    private var fileBytes: Int
    private var bodyBytes = 0

    /// Starts the temporary file; nil when it cannot be created or the head alone passes the store's bound.
    init?(store: DiskCacheStore, key: String, response: CachedResponse, limit: Int) {
        var head = CacheEntryCoding.header(key: key, count: 1)
        CacheEntryCoding.appendHead(of: response, bodyLength: 0, to: &head)
        guard head.count + CacheEntryCoding.checksumLength <= store.maxBytes else { return nil }
        let temporary = store.temporaryPath()
        let descriptor = DiskCacheStore.createFile(temporary)
        guard descriptor >= 0 else { return nil }
        guard DiskCacheStore.writeAll(head, to: descriptor) else {
            close(descriptor)
            unlink(temporary)
            return nil
        }
        self.store = store
        self.key = key
        self.response = response
        self.limit = limit
        self.temporary = temporary
        self.descriptor = descriptor
        let lengthOffset = head.count - 8
        self.lengthOffset = lengthOffset
        headChecksum = CacheChecksum(of: head[CacheEntryCoding.prefixLength..<lengthOffset])
        fileBytes = head.count
    }

    deinit { discard() }

    func write(_ chunk: Data) -> Bool {
        guard descriptor >= 0 else { return false }
        guard chunk.count <= limit - bodyBytes,
            chunk.count <= store.maxBytes - CacheEntryCoding.checksumLength - fileBytes,
            DiskCacheStore.writeAll(chunk, to: descriptor)
        else {
            discard()
            return false
        }
        bodyChecksum.update(chunk)
        bodyBytes += chunk.count
        fileBytes += chunk.count
        return true
    }

    func commit() {
        guard descriptor >= 0 else { return }
        let others = store.variants(for: key).filter { $0.varyingFields != response.varyingFields }
        var tail = Data()
        for variant in others { CacheEntryCoding.append(variant, to: &tail) }
        let length = fileBytes + tail.count + CacheEntryCoding.checksumLength
        let prefix = CacheEntryCoding.prefix(length: length, count: 1 + others.count)
        let bodyLength = CacheEntryCoding.bytes(of: UInt64(bodyBytes))
        // The CRC of the file as it will be: prefix, head, body length, body, other variants.
        let checksum = CacheChecksum(of: prefix)
            .combined(with: headChecksum, length: lengthOffset - CacheEntryCoding.prefixLength)
            .combined(with: CacheChecksum(of: bodyLength), length: bodyLength.count)
            .combined(with: bodyChecksum, length: bodyBytes)
            .combined(with: CacheChecksum(of: tail), length: tail.count)
        guard length <= store.maxBytes,
            DiskCacheStore.writeAll(bodyLength, to: descriptor, at: lengthOffset),
            DiskCacheStore.writeAll(tail, to: descriptor),
            DiskCacheStore.writeAll(Data(CacheEntryCoding.bytes(of: checksum.value)), to: descriptor),
            DiskCacheStore.writeAll(prefix, to: descriptor, at: 0)
        else {
            discard()
            return
        }
        close(descriptor)
        descriptor = -1
        store.install(temporary, for: key, size: length)
    }

    func discard() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporary)
    }
}

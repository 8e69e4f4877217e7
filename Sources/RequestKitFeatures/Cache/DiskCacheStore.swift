import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A cache store in a directory, bounded by bytes, safe for several processes sharing the directory.
///
/// One file per key (a URL, with the digest of the credentials its responses were stored for; its name a hash of
/// the key, the key inside checked), in ``CacheEntryCoding``'s format. A file is written whole to a temporary file
/// created owner-only (`0600`, the directory `0700`) and renamed over the old one, so a reader in any process sees
/// the old file or the new one, never half of one. A file that is truncated, lengthened or corrupt (its length or its
/// CRC-32 not what it holds, which is checked before it is decoded) reads as a miss and is removed; a file whose size
/// is not the length its first bytes give, or passes the bound, is not read past those bytes. A hit touches the
/// file's modification time (unless it was touched within ``touchInterval``: a touch writes the file system's
/// journal, which can stall a read for milliseconds), and when the directory passes its bound the least recently
/// touched files are removed first, whichever process wrote them.
///
/// What is written: the status, the response's fields except `Set-Cookie` (a cookie never reaches the disk), the
/// body, the URL, and the request's values of the fields the response varies on; a response that varies on
/// `Authorization` or `Cookie` is not written at all, so no credential is stored.
final class DiskCacheStore: CacheStore, @unchecked Sendable {
    /// Fields never written to disk.
    static let unwrittenFields: Set<String> = ["set-cookie", "set-cookie2"]
    /// Request fields whose values are secret: a response varying on one is not written.
    static let secretFields: Set<String> = ["authorization", "cookie", "proxy-authorization"]
    static let fileExtension = "rkcache"
    /// How long a hit leaves a file's modification time alone after the last touch, in seconds: trimming by
    /// recency needs no finer grain.
    static let touchInterval = 60

    let directory: URL
    /// ``directory``'s path, the prefix of every file's.
    private let directoryPath: String
    let maxBytes: Int
    /// The time in seconds since 1970 that decides and dates a touch: the system's, or a test's.
    private let now: @Sendable () -> Int
    // Safe: every access to `estimatedBytes` holds `lock`.
    private let lock = NSLock()
    private var estimatedBytes: Int

    init(directory: URL, maxBytes: Int, now: @escaping @Sendable () -> Int = { Int(time(nil)) }) {
        self.directory = directory
        self.now = now
        let path = directory.path
        directoryPath = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        self.maxBytes = max(0, maxBytes)
        try? FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        estimatedBytes = 0
        estimatedBytes = files().reduce(0) { $0 + $1.size }
        removeAbandonedTemporaryFiles()
    }

    var byteCount: Int { files().reduce(0) { $0 + $1.size } }

    func variants(for key: String) -> [CachedResponse] {
        let path = self.path(for: key)
        let data: Data
        let modified: Int
        switch Self.readEntry(path, maxBytes: maxBytes) {
        case .missing: return []
        case .corrupt:
            unlink(path)
            return []
        case .read(let bytes, let time): (data, modified) = (bytes, time)
        }
        guard let decoded = CacheEntryCoding.decode(data) else {
            // Cut short, lengthened, a byte changed, or out of place inside: a miss, and the file goes.
            unlink(path)
            return []
        }
        // Another key with the same hash, which the next store replaces.
        guard decoded.key == key else { return [] }
        let now = now()
        if now - modified >= Self.touchInterval { Self.touch(path, at: now) }
        return decoded.variants
    }

    /// Sets the modification time of the file at `path` to `seconds` since 1970.
    private static func touch(_ path: String, at seconds: Int) {
        let time = timeval(tv_sec: seconds, tv_usec: 0)
        _ = [time, time].withUnsafeBufferPointer { utimes(path, $0.baseAddress) }
    }

    /// What reading a file gave.
    enum Entry {
        /// No file, or one that cannot be opened.
        case missing
        /// A file that is not a whole entry: not read, and to be removed.
        case corrupt
        /// The whole file and its modification time in seconds since 1970.
        case read(Data, modified: Int)
    }

    /// The file at `path`, read whole only when its size is the length its first bytes give and within `maxBytes`:
    /// a file with bytes added (or a huge file put in its place) is found corrupt without being read.
    static func readEntry(_ path: String, maxBytes: Int) -> Entry {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .missing }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .missing }
        let size = Int(clamping: status.st_size)
        guard size >= CacheEntryCoding.minimumLength, size <= maxBytes else { return .corrupt }
        #if canImport(Darwin)
        let modified = Int(status.st_mtimespec.tv_sec)
        #else
        let modified = Int(status.st_mtim.tv_sec)
        #endif
        // The length it holds first: nothing more is read, nor room made for it, in a file of another length.
        let prefixLength = CacheEntryCoding.countOffset
        var prefix = [UInt8](repeating: 0, count: prefixLength)
        guard prefix.withUnsafeMutableBytes({ readExactly(descriptor, into: $0.baseAddress, count: prefixLength) }),
            CacheEntryCoding.declaredLength(prefix) == size
        else { return .corrupt }
        var data = Data(count: size)
        let isWhole = data.withUnsafeMutableBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            base.copyMemory(from: prefix, byteCount: prefixLength)
            return readExactly(descriptor, into: base + prefixLength, count: size - prefixLength)
        }
        // A file cut short since `fstat`.
        guard isWhole else { return .corrupt }
        return .read(data, modified: modified)
    }

    /// Reads exactly `count` bytes from `descriptor` into `base`; false when the file ends first or a read fails.
    private static func readExactly(_ descriptor: Int32, into base: UnsafeMutableRawPointer?, count: Int) -> Bool {
        guard let base else { return count == 0 }
        var done = 0
        while done < count {
            let got = read(descriptor, base + done, count - done)
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { return false }
            done += got
        }
        return true
    }

    func store(_ response: CachedResponse, for key: String) {
        guard let written = writable(response) else { return }
        let variants = Self.replacing(written, in: variants(for: key))
        let data = CacheEntryCoding.encode(key: key, variants: variants)
        guard data.count <= maxBytes else {
            remove(key)
            return
        }
        let temporary = temporaryPath()
        let descriptor = Self.createFile(temporary)
        guard descriptor >= 0 else { return }
        let isWritten = Self.writeAll(data, to: descriptor)
        close(descriptor)
        guard isWritten else {
            unlink(temporary)
            return
        }
        install(temporary, for: key, size: data.count)
    }

    /// Written to a temporary file as it streams (``DiskCacheBody``), never held in memory.
    func bodySink(for key: String, response: CachedResponse, limit: Int) -> (any CacheBodySink)? {
        guard let written = writable(response) else { return nil }
        return DiskCacheBody(store: self, key: key, response: written, limit: limit)
    }

    /// `response` as it is written: without ``unwrittenFields``; nil when it varies on a ``secretFields`` field.
    func writable(_ response: CachedResponse) -> CachedResponse? {
        guard !response.varyingFields.contains(where: { Self.secretFields.contains($0.name) }) else { return nil }
        var written = response
        for name in Self.unwrittenFields { written.headers.remove(name) }
        return written
    }

    /// A new temporary file's path in the directory: hidden, so the bound and trimming never count it.
    func temporaryPath() -> String {
        directory.appendingPathComponent(".\(UUID().uuidString).tmp").path
    }

    /// Renames the whole file at `temporary` (`size` bytes) into place as `key`'s file, trimming the directory when
    /// it passes its bound.
    func install(_ temporary: String, for key: String, size: Int) {
        guard rename(temporary, path(for: key)) == 0 else {
            unlink(temporary)
            return
        }
        let isOver = lock.withLock {
            estimatedBytes += size
            return estimatedBytes > maxBytes
        }
        if isOver { trim() }
    }

    func remove(_ key: String) { unlink(path(for: key)) }

    func removeAll(of urlKey: String) {
        unlink(path(for: urlKey))
        let prefix = Self.hash(urlKey) + "-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directoryPath) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix("." + Self.fileExtension) {
            unlink(directoryPath + "/" + name)
        }
    }

    func removeAll() {
        for file in files() { unlink(file.path) }
        lock.withLock { estimatedBytes = 0 }
    }

    /// The file of `key`: a hash of its URL's key, then, for a key with credentials, `-` and a hash of the whole key,
    /// so that the files of one URL share a prefix (``removeAll(of:)``).
    func path(for key: String) -> String {
        let urlKey = CacheRequest.urlKey(of: key)
        let name = urlKey.endIndex == key.endIndex ? Self.hash(key) : Self.hash(urlKey) + "-" + Self.hash(key)
        return directoryPath + "/" + name + "." + Self.fileExtension
    }

    /// A 128-bit hash of `text` in hex (two 64-bit FNV-1a hashes with different offsets): a file name, not a secret
    /// (the key inside the file is checked).
    static func hash(_ text: some StringProtocol) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x6c62_272e_07bb_0142
        for byte in text.utf8 {
            first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            second = (second ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return String(first, radix: 16) + String(second, radix: 16)
    }

    /// Removes the least recently touched files until the directory is within its bound.
    private func trim() {
        var files = files().sorted { $0.modified < $1.modified }
        var total = files.reduce(0) { $0 + $1.size }
        while total > maxBytes, !files.isEmpty {
            let oldest = files.removeFirst()
            unlink(oldest.path)
            total -= oldest.size
        }
        lock.withLock { estimatedBytes = total }
    }

    /// Removes the temporary files a process left behind when it ended while writing (a body streams for as long as
    /// its consumer reads it, so only files untouched for a day are taken as left behind).
    private func removeAbandonedTemporaryFiles() {
        let keys: [URLResourceKey] = [.contentModificationDateKey]
        guard let urls = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)
        else { return }
        let dayAgo = Date().addingTimeInterval(-86_400)
        for url in urls where url.lastPathComponent.hasPrefix(".") && url.pathExtension == "tmp" {
            guard let modified = try? url.resourceValues(forKeys: Set(keys)).contentModificationDate,
                modified < dayAgo
            else { continue }
            unlink(url.path)
        }
    }

    private struct File {
        let path: String
        let size: Int
        let modified: Date
    }

    /// The cache's files, with their sizes and modification times.
    private func files() -> [File] {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        guard
            let urls = try? FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles])
        else { return [] }
        return urls.compactMap { url in
            guard url.pathExtension == Self.fileExtension, let values = try? url.resourceValues(forKeys: Set(keys))
            else { return nil }
            return File(
                path: url.path, size: values.fileSize ?? 0, modified: values.contentModificationDate ?? .distantPast)
        }
    }

    /// Creates a file that must not exist yet, owner-only, for writing; its descriptor, or -1.
    static func createFile(_ path: String) -> Int32 {
        open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    }

    /// Writes all of `data` at the descriptor's offset; false when a write fails.
    static func writeAll(_ data: Data, to descriptor: Int32) -> Bool {
        data.withUnsafeBytes { buffer -> Bool in
            guard var base = buffer.baseAddress else { return true }
            var left = buffer.count
            while left > 0 {
                let count = write(descriptor, base, left)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                left -= count
                base += count
            }
            return true
        }
    }

    /// Writes all of `bytes` at `offset`, leaving the descriptor's offset alone; false when a write fails.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32, at offset: Int) -> Bool {
        bytes.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return true }
            var done = 0
            while done < buffer.count {
                let count = pwrite(descriptor, base + done, buffer.count - done, off_t(offset + done))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                done += count
            }
            return true
        }
    }
}

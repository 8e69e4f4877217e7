#if canImport(COpenSSL)
import COpenSSL
import Foundation

/// Carries a TLS session's records over another ``ByteStream`` rather than a socket: an OpenSSL BIO whose reads
/// and writes call the inner stream (TLS to an origin inside a tunnel that is TLS to a proxy).
///
/// A call of the inner stream that would block sets the BIO's retry flags, so OpenSSL reports
/// `SSL_ERROR_WANT_READ` or `SSL_ERROR_WANT_WRITE`, and the bridge keeps the readiness the inner stream asked
/// for (``interest``), which is what the outer stream must wait for. A failure of the inner stream is kept
/// (``takeFailure()``) and thrown as it is; an end of the inner stream reads as the end of the transport, which
/// OpenSSL reports as a close without close_notify. The bridge does no cryptography.
///
/// Used by one thread at a time, with the ``TLSByteStream`` it belongs to.
///
/// ```swift
/// let bridge = TLSStreamBridge(proxyStream)
/// let bio = TLSStreamBridge.makeBIO(bridge)  // for SSL_set_bio; the TLSByteStream keeps `bridge` alive
/// ```
final class TLSStreamBridge {
    /// The stream the records travel over; owned (and closed) by the ``TLSByteStream`` over it.
    let inner: any ByteStream
    /// The readiness the inner stream last waited for, since ``prepare()``.
    private(set) var interest: ByteStreamResult.Interest?
    /// The inner stream's failure, since ``prepare()``.
    private var failure: (any Error)?

    /// Bridges to `inner`.
    ///
    /// ```swift
    /// let bridge = TLSStreamBridge(proxyStream)
    /// ```
    init(_ inner: any ByteStream) {
        self.inner = inner
    }

    /// Forgets the outcome of the previous OpenSSL call; called before each one.
    ///
    /// ```swift
    /// bridge.prepare(); let result = SSL_read(ssl, base, count)
    /// ```
    func prepare() {
        interest = nil
        failure = nil
    }

    /// The failure of the inner stream during the last OpenSSL call, once.
    ///
    /// ```swift
    /// if let failure = bridge.takeFailure() { throw failure }
    /// ```
    func takeFailure() -> (any Error)? {
        defer { failure = nil }
        return failure
    }

    /// A new BIO over `bridge`, which must outlive it (the BIO holds it unretained); nil when OpenSSL cannot make it.
    ///
    /// ```swift
    /// guard let bio = TLSStreamBridge.makeBIO(bridge) else { throw failure }
    /// SSL_set_bio(ssl, bio, bio)
    /// ```
    static func makeBIO(_ bridge: TLSStreamBridge) -> OpaquePointer? {
        guard let method, let bio = BIO_new(method) else { return nil }
        BIO_set_data(bio, Unmanaged.passUnretained(bridge).toOpaque())
        BIO_set_init(bio, 1)
        return bio
    }

    /// The method table of bridge BIOs; made once, never freed.
    nonisolated(unsafe) private static let method: OpaquePointer? = {
        guard let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "RequestKit stream") else {
            return nil
        }
        _ = BIO_meth_set_write(method) { bio, bytes, count in
            guard let bio, let bridge = TLSStreamBridge.bridge(of: bio) else { return -1 }
            guard let bytes, count > 0 else { return 0 }
            return bridge.write(UnsafeRawBufferPointer(start: bytes, count: Int(count)), bio: bio)
        }
        _ = BIO_meth_set_read(method) { bio, bytes, count in
            guard let bio, let bridge = TLSStreamBridge.bridge(of: bio) else { return -1 }
            guard let bytes, count > 0 else { return 0 }
            return bridge.read(into: UnsafeMutableRawBufferPointer(start: bytes, count: Int(count)), bio: bio)
        }
        _ = BIO_meth_set_ctrl(method) { _, command, _, _ in
            command == BIO_CTRL_FLUSH ? 1 : 0
        }
        return method
    }()

    private static func bridge(of bio: OpaquePointer) -> TLSStreamBridge? {
        guard let data = BIO_get_data(bio) else { return nil }
        return Unmanaged<TLSStreamBridge>.fromOpaque(data).takeUnretainedValue()
    }

    /// One entry of the error queue, taken off it to be put back.
    private struct QueuedError {
        let code: UInt
        let file: UnsafePointer<CChar>?
        let line: Int32
        let function: UnsafePointer<CChar>?
        let data: String?
    }

    /// Runs a call of the inner stream with the thread's error queue empty, as its own OpenSSL calls need, and puts
    /// back afterwards what the outer session had queued (an alert it sends after a failed verification is written
    /// through the inner stream, and the failure must still be queued when the outer call returns). The inner
    /// stream's own errors are its to report (it throws them); any it left are dropped.
    private static func keepingErrorQueue(_ call: () throws -> ByteStreamResult) rethrows -> ByteStreamResult {
        var saved: [QueuedError] = []
        while true {
            var file: UnsafePointer<CChar>?
            var line: Int32 = 0
            var function: UnsafePointer<CChar>?
            var data: UnsafePointer<CChar>?
            var flags: Int32 = 0
            let code = ERR_get_error_all(&file, &line, &function, &data, &flags)
            guard code != 0 else { break }
            let text = flags & ERR_TXT_STRING != 0 ? data.map { String(cString: $0) } : nil
            saved.append(QueuedError(code: code, file: file, line: line, function: function, data: text))
        }
        defer {
            if ERR_peek_error() != 0 { ERR_clear_error() }
            for error in saved {
                requestkit_err_requeue(error.code, error.file, error.line, error.function, error.data)
            }
        }
        return try call()
    }

    private static let retryFlags = BIO_FLAGS_READ | BIO_FLAGS_WRITE | BIO_FLAGS_IO_SPECIAL | BIO_FLAGS_SHOULD_RETRY

    private func write(_ bytes: UnsafeRawBufferPointer, bio: OpaquePointer) -> Int32 {
        BIO_clear_flags(bio, Self.retryFlags)
        do {
            switch try Self.keepingErrorQueue({ try inner.write(bytes) }) {
            case .transferred(let count):
                return Int32(clamping: count)
            case .wouldBlock(let readiness):
                interest = readiness
                BIO_set_flags(bio, BIO_FLAGS_WRITE | BIO_FLAGS_SHOULD_RETRY)
                return -1
            case .endOfStream:
                failure = POSIXError(.EPIPE)
                return -1
            }
        } catch {
            failure = error
            return -1
        }
    }

    private func read(into buffer: UnsafeMutableRawBufferPointer, bio: OpaquePointer) -> Int32 {
        BIO_clear_flags(bio, Self.retryFlags)
        do {
            switch try Self.keepingErrorQueue({ try inner.read(into: buffer) }) {
            case .transferred(let count):
                return Int32(clamping: count)
            case .wouldBlock(let readiness):
                interest = readiness
                BIO_set_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_SHOULD_RETRY)
                return -1
            case .endOfStream:
                return 0
            }
        } catch {
            failure = error
            return -1
        }
    }
}
#endif

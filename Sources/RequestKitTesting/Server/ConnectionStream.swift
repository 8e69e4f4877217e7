import Foundation

#if canImport(COpenSSL)
import COpenSSL
#endif

/// The bytes of one accepted connection, over its non-blocking socket: the plain socket, or TLS over it (the
/// server's TLS mode). Every call returns at once, saying when the socket would block.
///
/// Used only by its connection's loop thread, except ``shutdownBoth()``, a plain socket call that any thread may
/// make.
///
/// ```swift
/// let stream = ConnectionStream(socket: socket)
/// if case .wouldBlock = stream.send(bytes) { /* wait for writability */ }
/// ```
final class ConnectionStream: @unchecked Sendable {
    /// What a read or a handshake step did.
    enum Progress: Equatable {
        /// This many bytes were read (or the handshake finished, with `0`).
        case done(Int)
        /// Nothing more until the socket is readable (`wantsWrite` false) or writable (true).
        case wouldBlock(wantsWrite: Bool)
        /// The peer ended the stream.
        case ended
        /// The connection failed.
        case failed
    }

    /// The connection's socket, which the server closes.
    let socket: SocketDescriptor
    #if canImport(COpenSSL)
    /// The server side of the TLS connection, or `nil` for plain HTTP.
    private let ssl: OpaquePointer?
    /// Set once a TLS read or write failed, after which OpenSSL forbids sending a close notification.
    private var isBroken = false
    #endif

    /// A plain connection.
    init(socket: SocketDescriptor) {
        self.socket = socket
        #if canImport(COpenSSL)
        ssl = nil
        #endif
    }

    #if canImport(COpenSSL)
    /// The server side of a TLS connection over `socket`, whose handshake ``handshake()`` drives; `nil` when
    /// OpenSSL cannot make one.
    init?(socket: SocketDescriptor, context: ServerTLSContext) {
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard let ssl = SSL_new(context.pointer) else { return nil }
        guard let method = ServerTLSContext.socketMethod, let bio = requestkit_socket_bio_new(method, socket.rawValue)
        else {
            SSL_free(ssl)
            return nil
        }
        SSL_set_bio(ssl, bio, bio)
        SSL_set_accept_state(ssl)
        // A write that would block may be retried with fewer or moved bytes, as the loop's output queue does.
        _ = SSL_ctrl(ssl, SSL_CTRL_MODE, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER), nil)
        self.socket = socket
        self.ssl = ssl
    }

    deinit {
        if let ssl { SSL_free(ssl) }
    }
    #endif

    /// Whether the connection runs TLS.
    var isTLS: Bool {
        #if canImport(COpenSSL)
        return ssl != nil
        #else
        return false
        #endif
    }

    /// Takes one step of the TLS handshake: `.done(0)` once it is complete (at once for a plain connection).
    func handshake() -> Progress {
        #if canImport(COpenSSL)
        if let ssl {
            ERR_clear_error()
            defer { ERR_clear_error() }
            let result = SSL_do_handshake(ssl)
            if result == 1 { return .done(0) }
            return progress(after: result, in: ssl)
        }
        #endif
        return .done(0)
    }

    /// Whether the TLS handshake resumed an earlier session; `false` for a plain connection.
    var isSessionResumed: Bool {
        #if canImport(COpenSSL)
        if let ssl { return SSL_session_reused(ssl) == 1 }
        #endif
        return false
    }

    /// Reads up to `buffer.count` bytes.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Progress {
        #if canImport(COpenSSL)
        if let ssl {
            guard let base = buffer.baseAddress else { return .failed }
            ERR_clear_error()
            defer { ERR_clear_error() }
            let count = SSL_read(ssl, base, Int32(clamping: buffer.count))
            if count > 0 { return .done(Int(count)) }
            return progress(after: count, in: ssl)
        }
        #endif
        while true {
            let count = recv(socket.rawValue, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .done(count) }
            if count == 0 { return .ended }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock(wantsWrite: false) }
            return .failed
        }
    }

    /// Writes as many of `bytes` as the socket takes now.
    func send(_ bytes: UnsafeRawBufferPointer) -> Progress {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .done(0) }
        #if canImport(COpenSSL)
        if let ssl {
            ERR_clear_error()
            defer { ERR_clear_error() }
            let count = SSL_write(ssl, base, Int32(clamping: bytes.count))
            if count > 0 { return .done(Int(count)) }
            let result = progress(after: count, in: ssl)
            return result == .ended ? .failed : result
        }
        #endif
        while true {
            let count = socket.sendWithoutWaiting(base, count: bytes.count)
            if count >= 0 { return .done(count) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock(wantsWrite: true) }
            return .failed
        }
    }

    #if canImport(COpenSSL)
    private func progress(after result: Int32, in ssl: OpaquePointer) -> Progress {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wouldBlock(wantsWrite: false)
        case SSL_ERROR_WANT_WRITE: return .wouldBlock(wantsWrite: true)
        case SSL_ERROR_ZERO_RETURN: return .ended
        default:
            isBroken = true
            return .failed
        }
    }
    #endif

    /// Stops sending (after a TLS close notification) while still allowing reads.
    func shutdownWrite() {
        #if canImport(COpenSSL)
        if let ssl, !isBroken, SSL_is_init_finished(ssl) == 1 {
            ERR_clear_error()
            _ = SSL_shutdown(ssl)
            ERR_clear_error()
        }
        #endif
        socket.shutdownWrite()
    }

    /// Stops both directions of the connection at once.
    func shutdownBoth() {
        socket.shutdownBoth()
    }
}

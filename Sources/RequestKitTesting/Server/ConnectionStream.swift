import Foundation

#if canImport(COpenSSL)
import COpenSSL
#endif

/// The bytes of one accepted connection: the plain socket, or TLS over it (the server's TLS mode), behind the
/// blocking calls the connection's thread makes.
///
/// Used only by its connection's thread (and by route handlers, which run there); ``shutdownBoth()`` is a plain
/// socket call that any thread may make.
///
/// ```swift
/// let stream = try ConnectionStream.accepting(socket, context: context, timeout: .seconds(30))
/// try stream.sendAll(Data("HTTP/1.1 200 OK\r\n\r\n".utf8))
/// ```
final class ConnectionStream: @unchecked Sendable {
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
    private init(socket: SocketDescriptor, ssl: OpaquePointer) {
        self.socket = socket
        self.ssl = ssl
    }

    deinit {
        if let ssl { SSL_free(ssl) }
    }

    /// Runs the server side of a TLS handshake on the blocking `socket`, giving up after `timeout` without
    /// progress; `nil` when it fails (the client rejected the certificate, or sent none when one is required).
    static func accepting(
        _ socket: SocketDescriptor, context: ServerTLSContext, timeout: Duration
    )
        -> ConnectionStream?
    {
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard let ssl = SSL_new(context.pointer) else { return nil }
        guard let method = ServerTLSContext.socketMethod,
            let bio = requestkit_socket_bio_new(method, socket.rawValue)
        else {
            SSL_free(ssl)
            return nil
        }
        SSL_set_bio(ssl, bio, bio)
        socket.setTimeouts(timeout)
        defer { socket.setTimeouts(.zero) }
        guard SSL_accept(ssl) == 1 else {
            SSL_free(ssl)
            return nil
        }
        return ConnectionStream(socket: socket, ssl: ssl)
    }
    #endif

    /// Whether the TLS handshake resumed an earlier session; `false` for a plain connection.
    var isSessionResumed: Bool {
        #if canImport(COpenSSL)
        if let ssl { return SSL_session_reused(ssl) == 1 }
        #endif
        return false
    }

    /// Waits up to `milliseconds` for bytes to read; decrypted bytes already held count at once.
    func waitForReadable(milliseconds: Int32) -> SocketDescriptor.Readiness {
        #if canImport(COpenSSL)
        if let ssl, SSL_pending(ssl) > 0 || SSL_has_pending(ssl) == 1 { return .readable }
        #endif
        return socket.waitForReadable(milliseconds: milliseconds)
    }

    /// Reads up to `buffer.count` bytes; returns the count, `0` at end of stream, or `nil` on failure.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        #if canImport(COpenSSL)
        if let ssl {
            guard let base = buffer.baseAddress else { return nil }
            ERR_clear_error()
            defer { ERR_clear_error() }
            let count = SSL_read(ssl, base, Int32(clamping: buffer.count))
            if count > 0 { return Int(count) }
            if SSL_get_error(ssl, count) == SSL_ERROR_ZERO_RETURN { return 0 }
            isBroken = true
            return nil
        }
        #endif
        return socket.receive(into: buffer)
    }

    /// Writes every byte of `bytes`, or throws when the connection fails (for example, the peer closed it).
    func sendAll(_ bytes: UnsafeRawBufferPointer) throws {
        #if canImport(COpenSSL)
        if let ssl {
            ERR_clear_error()
            defer { ERR_clear_error() }
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let count = SSL_write(ssl, base + offset, Int32(clamping: bytes.count - offset))
                guard count > 0 else {
                    isBroken = true
                    throw SocketDescriptor.Failure(call: "SSL_write", code: EPIPE)
                }
                offset += Int(count)
            }
            return
        }
        #endif
        try socket.sendAll(bytes)
    }

    /// Writes every byte of `data`.
    func sendAll(_ data: Data) throws {
        try data.withUnsafeBytes { try sendAll($0) }
    }

    /// Whether the peer has closed or reset the connection, checked without consuming any request bytes (a TLS
    /// close notification counts as closing).
    func isPeerGone() -> Bool {
        #if canImport(COpenSSL)
        if let ssl {
            if SSL_pending(ssl) > 0 { return false }
            switch socket.waitForReadable(milliseconds: 0) {
            case .timedOut: return false
            case .hungUp: return true
            case .readable: break
            }
            let flags = fcntl(socket.rawValue, F_GETFL)
            _ = fcntl(socket.rawValue, F_SETFL, flags | O_NONBLOCK)
            defer { _ = fcntl(socket.rawValue, F_SETFL, flags) }
            ERR_clear_error()
            defer { ERR_clear_error() }
            var byte: UInt8 = 0
            let count = SSL_peek(ssl, &byte, 1)
            if count > 0 { return false }
            return SSL_get_error(ssl, count) != SSL_ERROR_WANT_READ
        }
        #endif
        return socket.isPeerGone()
    }

    /// Stops sending (after a TLS close notification) while still allowing reads.
    func shutdownWrite() {
        #if canImport(COpenSSL)
        if let ssl, !isBroken {
            ERR_clear_error()
            _ = SSL_shutdown(ssl)
            ERR_clear_error()
        }
        #endif
        socket.shutdownWrite()
    }

    /// Stops both directions of the connection at once, waking any thread blocked on it.
    func shutdownBoth() {
        socket.shutdownBoth()
    }
}

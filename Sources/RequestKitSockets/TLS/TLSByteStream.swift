import RequestKitModel

#if canImport(COpenSSL)
import COpenSSL
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A ``ByteStream`` that runs TLS over a connected, non-blocking TCP socket, with OpenSSL.
///
/// ``handshake()`` is called until it returns `.transferred(0)`: it negotiates TLS 1.2 or 1.3, verifies the
/// server's certificate chain, dates and host name (or IP address) unless the configuration says otherwise, and
/// checks pinned keys. Reads and writes before that only advance the handshake, so no application byte reaches
/// the wire before the server is verified. Every failure is a ``RequestError`` of kind ``RequestError/Kind/tls``
/// naming the host, or a `POSIXError` for a failed system call.
///
/// A write that returned `.wouldBlock` must be called again with the same bytes (at least as many; their address
/// may change), as OpenSSL requires. A peer that closes without a TLS close notification reads as `.endOfStream`
/// with ``isEndUnconfirmed`` set: HTTP's own framing detects a truncated body of known length, and the transport
/// refuses a body delimited by the close, which an attacker on the path could have cut anywhere.
///
/// Used by one thread at a time (the event loop that owns the connection).
///
/// ```swift
/// let stream = try TLSByteStream(descriptor: fd, host: "api.example.com", port: 443, configuration: .default)
/// while case .wouldBlock(let interest) = try stream.handshake() { waitUntil(fd, is: interest) }
/// ```
package final class TLSByteStream: ByteStream {
    package private(set) var descriptor: Int32
    private let ssl: OpaquePointer
    private let context: TLSContext
    private let host: String
    private let port: Int
    private let sessionKey: TLSSessionKey
    /// The stream the session runs over, when it is not a socket of its own; nil over a descriptor.
    private let bridge: TLSStreamBridge?
    private var isHandshakeComplete = false
    /// Set after a fatal TLS error, when OpenSSL forbids sending close_notify.
    private var isBroken = false
    /// Set when the peer closed TCP without a close_notify.
    package private(set) var isEndUnconfirmed = false

    /// The method table of the socket BIO (sends never raise SIGPIPE); made once, never freed.
    nonisolated(unsafe) private static let socketMethod = requestkit_socket_bio_method_new()

    /// Prepares TLS on `descriptor`, which the stream then owns and closes; nothing is sent until ``handshake()``.
    ///
    /// - Parameters:
    ///   - descriptor: A connected, non-blocking TCP socket.
    ///   - host: The host name or IP address the request is for: sent by SNI (names only) and verified.
    ///   - port: The port, for messages and the session key.
    ///   - configuration: Trust, pinning and client identity.
    /// - Throws: A ``RequestError`` of kind ``RequestError/Kind/tls`` when the configuration cannot be used; the
    ///   descriptor is then still the caller's to close.
    package convenience init(descriptor: Int32, host: String, port: Int, configuration: TLSConfiguration) throws {
        try self.init(transport: .descriptor(descriptor), host: host, port: port, configuration: configuration)
    }

    /// Prepares TLS over `stream` (TLS to the origin inside a tunnel that is itself TLS to a proxy), which the
    /// stream then owns and closes; nothing is sent until ``handshake()``.
    ///
    /// The session's records are read and written through `stream`, whose readiness the new stream reports: a
    /// call that would block waits for what `stream` waited for, and bytes `stream` already holds count as
    /// ``hasBufferedBytes``.
    ///
    /// ```swift
    /// let proxy = try TLSByteStream(descriptor: fd, host: "proxy.example.com", port: 443, configuration: .default)
    /// // … CONNECT api.example.com:443 over `proxy`, then:
    /// let origin = try TLSByteStream(over: proxy, host: "api.example.com", port: 443, configuration: .default)
    /// ```
    /// - Parameters:
    ///   - stream: An open stream to the peer, ready to carry data (its own handshake done or done on demand).
    ///   - host: The host name or IP address the request is for: sent by SNI (names only) and verified.
    ///   - port: The port, for messages and the session key.
    ///   - configuration: Trust, pinning and client identity.
    /// - Throws: A ``RequestError`` of kind ``RequestError/Kind/tls`` when the configuration cannot be used;
    ///   `stream` is then still the caller's to close.
    package convenience init(
        over stream: any ByteStream, host: String, port: Int, configuration: TLSConfiguration
    ) throws {
        try self.init(
            transport: .stream(TLSStreamBridge(stream)), host: host, port: port, configuration: configuration)
    }

    /// What the session's records travel over.
    private enum Transport {
        case descriptor(Int32)
        case stream(TLSStreamBridge)
    }

    private init(transport: Transport, host: String, port: Int, configuration: TLSConfiguration) throws {
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let sessionKey = TLSSessionKey("\(bareHost):\(port)")
        let context: TLSContext
        do {
            context = try TLSContextCache.shared.context(for: configuration)
        } catch {
            throw RequestError.tlsFailed(
                .invalidConfiguration, host: bareHost, port: port, reason: "\(error)", underlyingError: error)
        }
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard let ssl = SSL_new(context.pointer) else {
            throw RequestError.tlsFailed(.handshakeFailed, host: bareHost, port: port, reason: "SSL_new failed")
        }
        let bio: OpaquePointer?
        let descriptor: Int32
        switch transport {
        case .descriptor(let socket):
            descriptor = socket
            bio = Self.socketMethod.flatMap { requestkit_socket_bio_new($0, socket) }
            bridge = nil
        case .stream(let streamBridge):
            descriptor = streamBridge.inner.descriptor
            bio = TLSStreamBridge.makeBIO(streamBridge)
            bridge = streamBridge
        }
        guard let bio else {
            SSL_free(ssl)
            throw RequestError.tlsFailed(.handshakeFailed, host: bareHost, port: port, reason: "BIO_new failed")
        }
        SSL_set_bio(ssl, bio, bio)
        SSL_set_connect_state(ssl)
        guard Self.name(ssl, bareHost, verifying: !configuration.insecureSkipVerificationForLocalDevelopmentOnly)
        else {
            SSL_free(ssl)
            throw RequestError.tlsFailed(
                .invalidConfiguration, host: bareHost, port: port, reason: "OpenSSL did not accept the host name")
        }
        SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(sessionKey).toOpaque())
        if let session = context.session(for: sessionKey.value) {
            _ = SSL_set_session(ssl, session)
            SSL_SESSION_free(session)
        }
        self.ssl = ssl
        self.descriptor = descriptor
        self.context = context
        self.host = bareHost
        self.port = port
        self.sessionKey = sessionKey
    }

    /// Sends `host` by SNI (names only) and makes verification check it (as a name or an address).
    private static func name(_ ssl: OpaquePointer, _ host: String, verifying: Bool) -> Bool {
        let isAddress = isIPAddress(host)
        if !isAddress, requestkit_SSL_set_tlsext_host_name(ssl, host) != 1 { return false }
        guard verifying else { return true }
        if isAddress { return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 }
        SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
        return SSL_set1_host(ssl, host) == 1
    }

    deinit {
        close()
        SSL_free(ssl)
    }

    /// Whether the last handshake resumed an earlier session with the same host and port.
    var isSessionResumed: Bool { SSL_session_reused(ssl) == 1 }

    /// The protocol ALPN selected (`"http/1.1"`), or `nil` when the server chose none.
    package var negotiatedApplicationProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The negotiated protocol version, such as `"TLSv1.3"`.
    var negotiatedProtocolVersion: String { String(cString: SSL_get_version(ssl)) }

    package var negotiatedTLS: RequestMetrics.TLS? {
        guard isHandshakeComplete else { return nil }
        // The IANA name of the suite (`TLS_AES_128_GCM_SHA256`), as RFC 8446 and every other client spell it.
        let cipher = SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_standard_name($0) }.map { String(cString: $0) }
        return RequestMetrics.TLS(
            version: negotiatedProtocolVersion, cipherSuite: cipher ?? "",
            isSessionResumed: SSL_session_reused(ssl) == 1)
    }

    package func handshake() throws -> ByteStreamResult {
        guard !isHandshakeComplete else { return .transferred(0) }
        guard descriptor >= 0, !isBroken else { throw POSIXError(.EBADF) }
        Self.emptyErrorQueue()
        bridge?.prepare()
        let result = SSL_do_handshake(ssl)
        guard result == 1 else { return try blocked(result, systemError: errno, during: .handshake) }
        if !context.pins.isEmpty {
            try checkPinnedKey()
        }
        isHandshakeComplete = true
        return .transferred(0)
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> ByteStreamResult {
        if !isHandshakeComplete {
            let result = try handshake()
            guard result == .transferred(0) else { return result }
        }
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return .transferred(0) }
        Self.emptyErrorQueue()
        bridge?.prepare()
        let count = SSL_read(ssl, base, Int32(clamping: buffer.count))
        if count > 0 { return .transferred(Int(count)) }
        return try blocked(count, systemError: errno, during: .read)
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws -> ByteStreamResult {
        if !isHandshakeComplete {
            let result = try handshake()
            guard result == .transferred(0) else { return result }
        }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .transferred(0) }
        Self.emptyErrorQueue()
        bridge?.prepare()
        let count = SSL_write(ssl, base, Int32(clamping: bytes.count))
        if count > 0 { return .transferred(Int(count)) }
        return try blocked(count, systemError: errno, during: .write)
    }

    /// Decrypted bytes of a record OpenSSL has read only: bytes of a record not yet whole (`SSL_has_pending`) cannot
    /// be read before more arrive, and a caller that read again for them would spin until they did.
    /// Over another stream, the bytes that stream holds count too: the session reads them without waiting.
    package var hasBufferedBytes: Bool {
        descriptor >= 0 && (SSL_pending(ssl) > 0 || bridge?.inner.hasBufferedBytes == true)
    }

    package func close() {
        guard descriptor >= 0 else { return }
        let owned = descriptor
        if isHandshakeComplete && !isBroken {
            // One try at close_notify; a full socket buffer or a peer that went away loses it, which is allowed.
            ERR_clear_error()
            bridge?.prepare()
            _ = SSL_shutdown(ssl)
            ERR_clear_error()
        }
        descriptor = -1
        if let bridge {
            bridge.inner.close()
            return
        }
        #if canImport(Glibc)
        _ = Glibc.close(owned)
        #elseif canImport(Musl)
        _ = Musl.close(owned)
        #endif
    }

    /// The call whose failure ``blocked(_:systemError:during:)`` interprets.
    private enum SSLCall {
        case handshake, read, write
    }

    /// What an unsuccessful OpenSSL call means: wait for the socket, the end of the stream, or a failure.
    private func blocked(_ result: Int32, systemError: Int32, during step: SSLCall) throws -> ByteStreamResult {
        let code = SSL_get_error(ssl, result)
        switch code {
        case SSL_ERROR_WANT_READ:
            // Over another stream, wait for what that stream waited for (a TLS read may need to write).
            return .wouldBlock(bridge?.interest ?? .readable)
        case SSL_ERROR_WANT_WRITE:
            return .wouldBlock(bridge?.interest ?? .writable)
        case SSL_ERROR_ZERO_RETURN where step == .read:
            return .endOfStream
        default:
            break
        }
        isBroken = true
        if let failure = bridge?.takeFailure() {
            ERR_clear_error()
            throw failure
        }
        let systemError = bridge == nil ? systemError : 0
        let errors = OpenSSLError.drainQueue()
        if step == .read, code == SSL_ERROR_SSL,
            errors.contains(where: { $0.isFromSSLLibrary && $0.reason == SSL_R_UNEXPECTED_EOF_WHILE_READING })
        {
            isEndUnconfirmed = true
            return .endOfStream
        }
        if code == SSL_ERROR_SYSCALL, errors.isEmpty {
            if step == .read, systemError == 0 {
                isEndUnconfirmed = true
                return .endOfStream
            }
            let posix = POSIXError(POSIXErrorCode(rawValue: systemError) ?? .ECONNRESET)
            guard step == .handshake else { throw posix }
            throw RequestError.tlsFailed(
                .handshakeFailed, host: host, port: port,
                reason: "the connection closed during the handshake", underlyingError: posix)
        }
        throw TLSFailureMapping(
            verifyResult: SSL_get_verify_result(ssl), errors: errors,
            hasClientCertificate: context.configuration.clientCertificate != nil
        ).error(host: host, port: port)
    }

    /// Compares the server's public key with the pinned hashes.
    private func checkPinnedKey() throws {
        guard let certificate = SSL_get1_peer_certificate(ssl) else {
            isBroken = true
            throw RequestError.tlsFailed(
                .pinnedKeyMismatch, host: host, port: port, reason: "the server sent no certificate")
        }
        defer { X509_free(certificate) }
        guard let hash = TLSPublicKeyHash.sha256(of: certificate), context.pins.contains(hash) else {
            isBroken = true
            ERR_clear_error()
            let actual = TLSPublicKeyHash.sha256(of: certificate).map { "sha256//" + $0.base64EncodedString() }
            throw RequestError.tlsFailed(
                .pinnedKeyMismatch, host: host, port: port, reason: actual.map { "the server's key is \($0)" })
        }
    }

    /// Empties this thread's OpenSSL error queue, as every TLS call needs it to be before it runs (so that
    /// `SSL_get_error` reports that call's failure). Looking costs much less than clearing, and the queue is
    /// almost always empty already.
    private static func emptyErrorQueue() {
        if ERR_peek_error() != 0 { ERR_clear_error() }
    }

    /// Whether `host` is an IPv4 or IPv6 address literal (no SNI; verified as an address).
    static func isIPAddress(_ host: String) -> Bool {
        var address4 = in_addr()
        var address6 = in6_addr()
        return inet_pton(AF_INET, host, &address4) == 1 || inet_pton(AF_INET6, host, &address6) == 1
    }
}
#endif

#if canImport(CNghttp2)
import Foundation
import RequestKitHTTP2
import RequestKitModel
import RequestKitSockets

/// A WebSocket's bytes carried on one HTTP/2 stream opened with extended CONNECT (RFC 8441), on a connection of its
/// own: a ``ByteStream`` over another (the TLS stream whose ALPN chose `h2`) that runs an ``HTTP2Session`` on it.
///
/// ``open()`` sends the preface, waits for the server's `SETTINGS`, sends the extended CONNECT once they allow it and
/// reads the answer. Once it is accepted, ``read(into:)`` and ``write(_:)`` carry the tunnel's bytes, as a TCP
/// stream's: the server's `DATA` open its window only as they are read (a slow reader stops the server), and bytes
/// written wait for the stream's window, at most ``maxUnsentBytes`` of them (a write then waits for the descriptor to
/// be readable: a `WINDOW_UPDATE` opens it). Everything else on the connection (`SETTINGS`, `PING`, acknowledgements)
/// is answered as it is read.
///
/// ```swift
/// let tunnel = try HTTP2TunnelByteStream(over: tls, head: upgrade.extendedConnectHead(fields: fields, target: target))
/// switch try tunnel.open() {
/// case .waiting: break                          // read again once the descriptor is readable
/// case .notAllowed: reconnectOverHTTP1()
/// case .answered(let status, let headers, let body): check(status, headers, body)
/// }
/// ```
final class HTTP2TunnelByteStream: ByteStream {
    /// Where opening the tunnel is.
    enum Opening: Equatable {
        /// Waiting for the server's `SETTINGS` or its answer.
        case waiting
        /// The server speaks HTTP/2 and did not allow extended CONNECT (its `SETTINGS` have no
        /// `SETTINGS_ENABLE_CONNECT_PROTOCOL` = 1): the WebSocket must be opened on another connection.
        case notAllowed
        /// The server answered: a 2xx opens the tunnel (its first bytes wait to be read), anything else comes with
        /// its body (at most ``WebSocketUpgrade/maxRefusalBodyBytes``).
        case answered(status: Int, headers: HTTPHeaders, body: Data)
    }

    /// The most bytes written and not yet sent (the stream's window is closed) before a write waits.
    static let maxUnsentBytes = 256 * 1024

    private let inner: any ByteStream
    private let session: HTTP2Session
    private let head: HTTP2RequestHead
    private var tunnel: Int32?
    private var answer: (status: Int, headers: HTTPHeaders)?
    /// The server's bytes on the tunnel not yet read; the first `inboundStart` were.
    private var inbound: [UInt8] = []
    private var inboundStart = 0
    /// Whether the server ended its half of the tunnel.
    private var isInboundEnded = false
    /// Whether ``finishSending()`` ended this half of the tunnel.
    private var isSendingFinished = false
    /// Whether the server ended the connection.
    private var isConnectionEnded = false
    /// Why the tunnel or its connection failed.
    private var failure: RequestError?
    /// The session's bytes that the inner stream did not take yet; the first `unwrittenStart` went.
    private var unwritten: [UInt8] = []
    private var unwrittenStart = 0
    private let scratch: UnsafeMutableRawBufferPointer

    /// A tunnel over `inner`, not yet open: ``open()`` opens it.
    ///
    /// - Throws: ``RequestError`` when nghttp2 cannot make the session.
    init(
        over inner: any ByteStream, head: HTTP2RequestHead, settings: HTTP2Settings = HTTP2Settings()
    )
        throws(RequestError)
    {
        self.inner = inner
        self.head = head
        do {
            session = try HTTP2Session(settings: settings)
        } catch {
            throw RequestError.transport(
                error, detail: "the HTTP/2 session for the WebSocket could not start: \(error)")
        }
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 * 1024, alignment: 16)
    }

    deinit {
        scratch.deallocate()
    }

    // MARK: Opening

    /// Moves the opening on with what the server sent: the preface and `SETTINGS` go out on the first call, the
    /// extended CONNECT once the server's `SETTINGS` allow it.
    ///
    /// - Throws: ``RequestError`` when the connection or the stream failed, or the server ended the connection.
    func open() throws(RequestError) -> Opening {
        try pump()
        if tunnel == nil {
            guard session.hasServerSettings else {
                if let failure { throw failure }
                return .waiting
            }
            guard session.allowsExtendedConnect else { return .notAllowed }
            do {
                tunnel = try session.openTunnel(head)
            } catch {
                throw RequestError.transport(
                    POSIXError(.EPROTO), detail: "the HTTP/2 connection could not open the WebSocket's stream: \(error)"
                )
            }
            try writeUnwritten()
        }
        guard let answer else {
            if let failure { throw failure }
            return .waiting
        }
        guard (200..<300).contains(answer.status) else {
            let body = inbound.count - inboundStart
            guard isInboundEnded || failure != nil || body >= WebSocketUpgrade.maxRefusalBodyBytes else {
                return .waiting
            }
            let kept = Data(inbound[inboundStart..<(inboundStart + min(body, WebSocketUpgrade.maxRefusalBodyBytes))])
            return .answered(status: answer.status, headers: answer.headers, body: kept)
        }
        return .answered(status: answer.status, headers: answer.headers, body: Data())
    }

    /// Whether the extended CONNECT went out whole.
    var hasSentRequest: Bool { tunnel != nil && !hasUnwrittenBytes }

    /// The tunnel's bytes read so far and not yet taken, given back to the server's window: the first frames, which
    /// came with the answer.
    func takeInbound() -> [UInt8] {
        let taken = Array(inbound[inboundStart...])
        inbound = []
        inboundStart = 0
        if let tunnel { session.consumed(taken.count, on: tunnel) }
        _ = try? writeUnwritten()
        return taken
    }

    // MARK: ByteStream

    var descriptor: Int32 { inner.descriptor }

    /// The inner stream is ready already (its connector did the TLS handshake).
    func handshake() throws -> ByteStreamResult { .transferred(0) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> ByteStreamResult {
        if inboundStart == inbound.count, !isInboundEnded, failure == nil { try pump() }
        if inboundStart < inbound.count {
            let count = min(buffer.count, inbound.count - inboundStart)
            inbound.withUnsafeBytes { bytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[inboundStart..<(inboundStart + count)]))
            }
            inboundStart += count
            if inboundStart == inbound.count {
                inbound.removeAll(keepingCapacity: true)
                inboundStart = 0
            }
            if let tunnel {
                session.consumed(count, on: tunnel)
                try writeUnwritten()
            }
            return .transferred(count)
        }
        if let failure { throw failure }
        if isInboundEnded { return .endOfStream }
        return .wouldBlock(.readable)
    }

    /// Queues `bytes` on the tunnel. An empty write only sends what the session has waiting.
    func write(_ bytes: UnsafeRawBufferPointer) throws -> ByteStreamResult {
        if let failure { throw failure }
        guard try writeUnwritten() else { return .wouldBlock(.writable) }
        guard !bytes.isEmpty else { return .transferred(0) }
        guard let tunnel else { throw RequestError.webSocket(.closed, "the WebSocket's HTTP/2 stream is not open") }
        if session.unsentTunnelBytes(on: tunnel) >= Self.maxUnsentBytes {
            // The window may have opened in what the server sent.
            try pump()
            if let failure { throw failure }
            guard session.unsentTunnelBytes(on: tunnel) < Self.maxUnsentBytes else { return .wouldBlock(.readable) }
        }
        session.send(Data(bytes), on: tunnel)
        try writeUnwritten()
        return .transferred(bytes.count)
    }

    var hasBufferedBytes: Bool { inboundStart < inbound.count || isInboundEnded || failure != nil }

    var isReadableNow: Bool { hasBufferedBytes || inner.isReadableNow }

    /// An HTTP/2 stream ends with `END_STREAM` or a reset, never cut short unseen.
    var isEndUnconfirmed: Bool { false }

    var negotiatedTLS: RequestMetrics.TLS? { inner.negotiatedTLS }

    var negotiatedApplicationProtocol: String? { inner.negotiatedApplicationProtocol }

    /// Whether bytes of the session wait for the inner stream to take them: an empty ``write(_:)`` sends them.
    var hasUnwrittenBytes: Bool { unwrittenStart < unwritten.count }

    /// Whether the connection can bring more from the server: it has neither ended nor failed.
    var isConnectionOpen: Bool { failure == nil && !isConnectionEnded }

    /// Reads what the server sent into the session without taking the stream's bytes, and writes what the session
    /// answers (`PING` and `SETTINGS` acknowledgements): the connection stays answered while the WebSocket's reader
    /// is paused, and the stream's window, which opens only as ``read(into:)`` takes bytes, bounds what piles up.
    /// A failure is kept for ``read(into:)`` to report.
    func service() {
        try? pump()
    }

    /// Whether bytes written to the tunnel still wait for the stream's window once what the server sent is read (a
    /// `WINDOW_UPDATE` sends them): a closing WebSocket waits for them, since its close frame is among them and a
    /// reset of the stream would drop it.
    ///
    /// - Throws: ``RequestError`` when the connection or the stream failed.
    func hasUnsentBytes() throws(RequestError) -> Bool {
        guard let tunnel, session.unsentTunnelBytes(on: tunnel) > 0 else { return false }
        try pump()
        if let failure { throw failure }
        return session.unsentTunnelBytes(on: tunnel) > 0
    }

    /// Ends the tunnel's sending half with `END_STREAM`, as a FIN ends a TCP connection's, after what waits: an
    /// orderly end, which ``close()`` then does not turn into a reset.
    func finishSending() {
        guard let tunnel, failure == nil else { return }
        session.finishSending(on: tunnel)
        isSendingFinished = true
        _ = try? writeUnwritten()
    }

    /// Ends the tunnel's sending half (what waits goes first, as far as the socket takes it now) and closes the
    /// connection: with `END_STREAM` once the server ended its half or ``finishSending()`` ended this one, with a
    /// reset of the stream otherwise.
    func close() {
        if let tunnel, failure == nil {
            if isInboundEnded || isSendingFinished {
                session.finishSending(on: tunnel)
            } else {
                session.cancel(tunnel)
            }
            _ = try? writeUnwritten()
        }
        inner.close()
    }

    // MARK: The connection

    /// Reads everything the inner stream holds into the session and acts on what it meant, then writes what the
    /// session has to send.
    private func pump() throws(RequestError) {
        while failure == nil {
            let result: ByteStreamResult
            do {
                result = try inner.read(into: scratch)
            } catch {
                fail(error)
                break
            }
            switch result {
            case .transferred(let count):
                take(session.receive(UnsafeRawBufferPointer(rebasing: scratch[0..<count])))
                continue
            case .endOfStream:
                isConnectionEnded = true
                take(session.receivedEnd())
                if failure == nil, !isInboundEnded {
                    failure = .webSocket(
                        .closed, "the server closed the HTTP/2 connection before the WebSocket's stream ended")
                }
            case .wouldBlock:
                break
            }
            break
        }
        try writeUnwritten()
    }

    /// Acts on what the session reports.
    private func take(_ outputs: [HTTP2Session.Output]) {
        for output in outputs {
            switch output {
            case .head(let stream, let status, let headers) where stream == tunnel:
                answer = (status, headers)
            case .data(let stream, let bytes) where stream == tunnel:
                inbound.append(contentsOf: bytes)
            case .end(let stream) where stream == tunnel:
                isInboundEnded = true
            case .retry(let stream, _) where stream == tunnel:
                failure = .webSocket(.closed, "the HTTP/2 server did not process the WebSocket's stream")
            case .failed(let stream, let reason) where stream == tunnel:
                failure = .transport(reason, detail: "the WebSocket's HTTP/2 stream failed: \(reason)")
            case .closed(let reason?):
                if failure == nil {
                    failure = .transport(reason, detail: "the WebSocket's HTTP/2 connection failed: \(reason)")
                }
            default:
                break
            }
        }
    }

    private func fail(_ error: any Error) {
        failure =
            (error as? RequestError)
            ?? .transport(error, detail: "the WebSocket's HTTP/2 connection failed: \(error)")
    }

    /// Writes what the session has to send as far as the inner stream takes it: whether all of it went.
    @discardableResult
    private func writeUnwritten() throws(RequestError) -> Bool {
        let made = session.outgoing()
        if !made.isEmpty {
            if unwrittenStart == unwritten.count {
                unwritten = made
                unwrittenStart = 0
            } else {
                unwritten += made
            }
        }
        while unwrittenStart < unwritten.count {
            let result: ByteStreamResult
            do {
                result = try unwritten.withUnsafeBytes { bytes in
                    try inner.write(UnsafeRawBufferPointer(rebasing: bytes[unwrittenStart...]))
                }
            } catch {
                fail(error)
                if let failure { throw failure }
                return false
            }
            guard case .transferred(let count) = result else { return false }
            unwrittenStart += count
        }
        unwritten.removeAll(keepingCapacity: unwritten.count <= 64 * 1024)
        unwrittenStart = 0
        return true
    }
}
#endif

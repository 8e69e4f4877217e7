import Foundation
import RequestKitModel

/// The `CONNECT` exchange that opens a tunnel through an HTTP proxy, without I/O: the request to write, then the
/// proxy's answer, fed as it arrives, until the tunnel is open or the proxy refused it.
///
/// A 2xx answer opens the tunnel; a 407 fails with ``RequestError/ConnectionFailure/proxyAuthenticationRequired``
/// and the proxy's answer (its `Proxy-Authenticate` challenge) kept as the error's ``RequestError/response``; any
/// other answer fails with ``RequestError/ConnectionFailure/proxyFailed`` naming the proxy and the status. The
/// origin is never contacted in either case. Bytes after the answer's head (a body, or the origin speaking first)
/// fail the tunnel rather than being taken for the origin's.
///
/// ```swift
/// var handshake = ProxyConnectHandshake(proxy: server, host: "example.com", port: 443)
/// write(handshake.request)
/// switch try handshake.received(bytes) { case .needsMore: …; case .established: … }
/// ```
struct ProxyConnectHandshake: Sendable {
    /// Where the handshake is after some bytes of the answer.
    enum Step: Sendable, Equatable {
        /// The answer's head is not complete: read more.
        case needsMore
        /// The tunnel is open.
        case established
    }

    let proxy: ProxyServer
    /// The request: `CONNECT host:port`, `Host`, and `Proxy-Authorization` when the proxy has credentials.
    let request: [UInt8]
    private var received: [UInt8] = []

    /// The largest answer head taken from a proxy.
    static let maxHeadBytes = 16 * 1024

    init(proxy: ProxyServer, host: String, port: Int) {
        self.proxy = proxy
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var text = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        if let credentials = proxy.credentials {
            text += "Proxy-Authorization: \(credentials.basicAuthorization)\r\n"
        }
        text += "\r\n"
        request = Array(text.utf8)
    }

    /// What the handshake waits for from the proxy, for the message of a timeout.
    var awaited: String { received.isEmpty ? "its answer to CONNECT" : "the rest of its answer to CONNECT" }

    /// Takes bytes of the proxy's answer.
    ///
    /// - Returns: Whether the tunnel is open, or more bytes are needed.
    /// - Throws: ``RequestError`` of kind `.transport` when the proxy refused the tunnel or did not answer in
    ///   HTTP.
    mutating func received(_ bytes: some Collection<UInt8>) throws(RequestError) -> Step {
        received.append(contentsOf: bytes)
        let parsed: (head: ResponseHead, length: Int)?
        do {
            var limits = ResponseHead.Limits()
            limits.maxHeadBytes = Self.maxHeadBytes
            parsed = try received.withUnsafeBytes { buffer throws(HTTP1ParseError) in
                try ResponseHead.parse(buffer, limits: limits)
            }
        } catch let error as HTTP1ParseError {
            throw failure("its answer to CONNECT is not HTTP (\(error.reason))", underlyingError: error)
        } catch {
            throw failure("its answer to CONNECT is not HTTP", underlyingError: error)
        }
        guard let (head, length) = parsed else { return .needsMore }
        if head.status >= 100 && head.status < 200 {
            // An interim answer: the final one follows.
            received.removeFirst(length)
            return try received.isEmpty ? .needsMore : self.received([])
        }
        let response = NativeTransport.response(head, url: nil)
        switch head.status {
        case 200..<300:
            guard length == received.count else {
                throw failure("it sent bytes after its answer to CONNECT", underlyingError: POSIXError(.EPROTO))
            }
            return .established
        case 407:
            throw proxy.authenticationRequired(by: response)
        default:
            throw RequestError(
                kind: .transport, response: response, underlyingError: POSIXError(.ECONNREFUSED),
                detail: "The \(proxy.place) refused the tunnel: \(head.status) \(head.reason)",
                connectionFailure: .proxyFailed)
        }
    }

    private func failure(_ reason: String, underlyingError: any Error) -> RequestError {
        RequestError(
            kind: .transport, underlyingError: underlyingError, detail: "The \(proxy.place) failed: \(reason)",
            connectionFailure: .proxyFailed)
    }
}

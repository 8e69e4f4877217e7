import Foundation
import RequestKitModel

/// The SOCKS5 exchange (RFC 1928, and RFC 1929's username/password method) that opens a connection to an origin
/// through a SOCKS proxy, without I/O: bytes to write, then the proxy's replies, fed as they arrive.
///
/// The greeting offers "no authentication", and "username/password" when the proxy has credentials. The connect
/// request names the origin by IPv4 or IPv6 address when `host` is one (`socks5`, where the transport looks names
/// up), by name otherwise (`socks5h`). Each reply code the proxy can send fails with
/// ``RequestError/ConnectionFailure/proxyFailed`` and a message saying what it means, or with
/// ``RequestError/ConnectionFailure/proxyAuthenticationRequired`` when the proxy wants credentials or rejects
/// them.
///
/// ```swift
/// var handshake = try SOCKS5Handshake(proxy: server, host: "example.com", port: 443)
/// write(handshake.greeting)
/// switch try handshake.received(bytes) { case .send(let reply): write(reply); case .needsMore, .established: … }
/// ```
struct SOCKS5Handshake: Sendable {
    /// What to do after some bytes of the proxy's replies.
    enum Step: Sendable, Equatable {
        /// Write these bytes, then read the next reply.
        case send([UInt8])
        /// The reply is not complete: read more.
        case needsMore
        /// The connection to the origin is open.
        case established
    }

    private enum Phase: Sendable {
        case choosingMethod, authenticating, connecting, established
    }

    let proxy: ProxyServer
    /// The first bytes to write: the methods offered.
    let greeting: [UInt8]
    private let connectRequest: [UInt8]
    private var phase = Phase.choosingMethod
    private var received: [UInt8] = []

    /// A handshake for `host` (a name, or an IPv4 or IPv6 address) and `port`.
    ///
    /// - Throws: ``RequestError`` of kind `.invalidRequest` when the name, user or password is longer than
    ///   SOCKS5's 255 bytes.
    init(proxy: ProxyServer, host: String, port: Int) throws(RequestError) {
        self.proxy = proxy
        greeting = proxy.credentials == nil ? [5, 1, 0x00] : [5, 2, 0x00, 0x02]
        var request: [UInt8] = [5, 1, 0]
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let address = NoProxyList.ipv4(Substring(bare)) {
            request.append(1)
            request += withUnsafeBytes(of: address.bigEndian) { Array($0) }
        } else if let address = NoProxyList.ipv6(Substring(bare)) {
            request.append(4)
            request += address
        } else {
            let name = Array(bare.utf8)
            guard !name.isEmpty, name.count <= 255 else {
                throw Self.invalid("the host name \"\(bare)\" is longer than the 255 bytes SOCKS5 carries")
            }
            request.append(3)
            request.append(UInt8(name.count))
            request += name
        }
        request += [UInt8(truncatingIfNeeded: port >> 8), UInt8(truncatingIfNeeded: port)]
        connectRequest = request
        if let credentials = proxy.credentials {
            guard credentials.user.utf8.count <= 255, credentials.password.utf8.count <= 255 else {
                throw Self.invalid("SOCKS5 carries a user name and password of at most 255 bytes each")
            }
        }
    }

    /// What the handshake waits for from the proxy, for the message of a timeout.
    var awaited: String {
        switch phase {
        case .choosingMethod: return "its choice of authentication method"
        case .authenticating: return "its answer to the user name and password"
        case .connecting: return "its answer to the connect request"
        case .established: return "nothing (the tunnel is open)"
        }
    }

    /// Takes bytes of the proxy's replies.
    ///
    /// - Returns: What to do next.
    /// - Throws: ``RequestError`` of kind `.transport` when the proxy refused, or did not answer in SOCKS5.
    mutating func received(_ bytes: some Collection<UInt8>) throws(RequestError) -> Step {
        received.append(contentsOf: bytes)
        switch phase {
        case .choosingMethod:
            guard received.count >= 2 else { return .needsMore }
            guard received[0] == 5 else { throw failure("it does not speak SOCKS5 (version byte \(received[0]))") }
            let method = received[1]
            received.removeFirst(2)
            switch method {
            case 0x00 where received.isEmpty:
                phase = .connecting
                return .send(connectRequest)
            case 0x02 where proxy.credentials != nil && received.isEmpty:
                phase = .authenticating
                return .send(authentication())
            case 0xFF:
                guard proxy.credentials != nil else { throw authenticationFailure("requires a user name and password") }
                throw failure("it accepts none of the authentication methods offered")
            default:
                throw failure("it chose a method that was not offered (\(method)) or sent extra bytes")
            }
        case .authenticating:
            guard received.count >= 2 else { return .needsMore }
            guard received.count == 2, received[0] == 1 else {
                throw failure("its answer to the user name and password is not SOCKS5")
            }
            guard received[1] == 0 else {
                throw authenticationFailure("rejected the credentials for user \"\(proxy.credentials?.user ?? "")\"")
            }
            received.removeAll()
            phase = .connecting
            return .send(connectRequest)
        case .connecting:
            guard received.count >= 5 else { return .needsMore }
            guard received[0] == 5 else { throw failure("its reply is not SOCKS5 (version byte \(received[0]))") }
            guard received[1] == 0 else {
                let code = received[1]
                throw failure("\(Self.meaning(ofReply: code)) (SOCKS5 reply \(code))")
            }
            let length: Int
            switch received[3] {
            case 1: length = 10
            case 4: length = 22
            case 3: length = 7 + Int(received[4])
            default: throw failure("its reply has an unknown address type \(received[3])")
            }
            guard received.count >= length else { return .needsMore }
            guard received.count == length else { throw failure("it sent bytes after its reply") }
            phase = .established
            return .established
        case .established:
            throw failure("it sent bytes after its reply")
        }
    }

    /// The RFC 1929 request: version 1, then the user name and password with their lengths.
    private func authentication() -> [UInt8] {
        let user = Array((proxy.credentials?.user ?? "").utf8)
        let password = Array((proxy.credentials?.password ?? "").utf8)
        return [1, UInt8(user.count)] + user + [UInt8(password.count)] + password
    }

    /// What a SOCKS5 reply code means (RFC 1928, section 6).
    static func meaning(ofReply code: UInt8) -> String {
        switch code {
        case 1: return "general SOCKS server failure"
        case 2: return "connection not allowed by its rules"
        case 3: return "network unreachable"
        case 4: return "host unreachable"
        case 5: return "connection refused by the destination"
        case 6: return "TTL expired"
        case 7: return "command not supported"
        case 8: return "address type not supported"
        default: return "unknown SOCKS5 error"
        }
    }

    private func failure(_ reason: String) -> RequestError {
        RequestError(
            kind: .transport, underlyingError: POSIXError(.ECONNREFUSED),
            detail: "The \(proxy.place) failed: \(reason)",
            connectionFailure: .proxyFailed)
    }

    private func authenticationFailure(_ reason: String) -> RequestError {
        RequestError(
            kind: .transport, underlyingError: POSIXError(.EACCES), detail: "The \(proxy.place) \(reason)",
            connectionFailure: .proxyAuthenticationRequired)
    }

    private static func invalid(_ message: String) -> RequestError {
        RequestError.invalidRequest([RequestProblem(.invalidComponent, message)])
    }
}

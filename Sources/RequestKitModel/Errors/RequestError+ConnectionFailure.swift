import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RequestError {
    /// Why a connection could not be made or was lost: the finer reason of a ``Kind/transport`` error, the same
    /// on every transport.
    ///
    /// ```swift
    /// catch let error as RequestError {
    ///     switch error.connectionFailure {
    ///     case .hostNotFound?: print("check the host name")
    ///     case .connectionRefused?: print("is the server running?")
    ///     default: print(error)
    ///     }
    /// }
    /// ```
    public struct ConnectionFailure: Sendable, Hashable, CustomStringConvertible {
        /// A stable name for the reason.
        public let name: String

        /// Creates a reason with a stable name.
        ///
        /// ```swift
        /// let proxyRefused = RequestError.ConnectionFailure("proxyRefused")
        /// ```
        public init(_ name: String) { self.name = name }

        public var description: String { name }

        /// The host name did not resolve to an address (DNS lookup failed).
        public static let hostNotFound = Self("hostNotFound")
        /// Nothing accepted the connection at that address and port.
        public static let connectionRefused = Self("connectionRefused")
        /// The connection was reset or lost while the request was under way.
        public static let connectionReset = Self("connectionReset")
        /// The TLS handshake failed: a bad certificate, an unsupported protocol, a closed connection.
        public static let secureConnectionFailed = Self("secureConnectionFailed")
        /// The proxy asked for credentials, or rejected them (`407`): the error's ``RequestError/response`` holds
        /// the proxy's answer, with its `Proxy-Authenticate` challenge.
        ///
        /// ```swift
        /// if error.connectionFailure == .proxyAuthenticationRequired {
        ///     print(error.response?.headers["Proxy-Authenticate"] ?? "")
        /// }
        /// ```
        public static let proxyAuthenticationRequired = Self("proxyAuthenticationRequired")
        /// The proxy would not open the way to the origin: a `CONNECT` answered with another status (kept in
        /// ``RequestError/response``), a SOCKS5 reply code, or an answer in another protocol. The message names
        /// the proxy and its reason; the origin was not contacted.
        ///
        /// ```swift
        /// if error.connectionFailure == .proxyFailed { print(error) }
        /// ```
        public static let proxyFailed = Self("proxyFailed")

        /// A sentence naming the host and port, for ``RequestError/description``.
        func message(host: String, port: Int?) -> String {
            let place = port.map { "\(host) port \($0)" } ?? host
            switch self {
            case .hostNotFound: return "Could not find host \"\(host)\""
            case .connectionRefused: return "Connection refused by \(place)"
            case .connectionReset: return "The connection to \(place) was reset"
            case .secureConnectionFailed: return "The secure (TLS) connection to \(place) failed"
            case .proxyAuthenticationRequired: return "The proxy \(place) requires authentication"
            case .proxyFailed: return "The proxy \(place) failed"
            default: return "Could not connect to \(place) (\(name))"
            }
        }
    }

    /// A connection failure, described with the host and port it concerns.
    ///
    /// A custom ``Transport`` throws it so that its users read the same errors as with the built-in transports.
    ///
    /// ```swift
    /// throw RequestError.connectionFailed(.connectionRefused, host: "127.0.0.1", port: 9, underlyingError: error)
    /// // Connection refused by 127.0.0.1 port 9
    /// ```
    /// - Parameters:
    ///   - failure: Why the connection failed.
    ///   - host: The host the request was for.
    ///   - port: The port, when known.
    ///   - underlyingError: The system's error, kept in ``underlyingError``.
    ///   - reason: The system's explanation, added to the message (such as the resolver's message).
    /// - Returns: An error of kind ``Kind/transport`` whose ``connectionFailure`` is `failure`.
    public static func connectionFailed(
        _ failure: ConnectionFailure, host: String, port: Int?, underlyingError: any Error, reason: String? = nil
    ) -> RequestError {
        var message = failure.message(host: host, port: port)
        if let reason, !reason.isEmpty { message += " (\(reason))" }
        return RequestError(
            kind: .transport, underlyingError: underlyingError, detail: message, connectionFailure: failure)
    }

    /// The connection failure a URLSession error code stands for, if any.
    package static func connectionFailure(for code: URLError.Code) -> ConnectionFailure? {
        switch code {
        case .cannotFindHost, .dnsLookupFailed: .hostNotFound
        case .cannotConnectToHost: .connectionRefused
        case .networkConnectionLost: .connectionReset
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
            .clientCertificateRequired:
            .secureConnectionFailed
        default: nil
        }
    }

    /// The connection failure a system error code stands for, if any.
    package static func connectionFailure(for code: POSIXErrorCode) -> ConnectionFailure? {
        switch code {
        case .ECONNREFUSED: .connectionRefused
        case .ECONNRESET, .EPIPE, .ECONNABORTED: .connectionReset
        default: nil
        }
    }
}

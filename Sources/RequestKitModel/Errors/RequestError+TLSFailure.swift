import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RequestError {
    /// Which check or step of a secure (TLS) connection failed: the finer reason of a ``Kind/tls`` error.
    ///
    /// ```swift
    /// catch let error as RequestError where error.kind == .tls {
    ///     switch error.tlsFailure {
    ///     case .certificateExpired?: print("the server's certificate has expired")
    ///     case .hostnameMismatch?: print("the certificate is for another host")
    ///     default: print(error)
    ///     }
    /// }
    /// ```
    public struct TLSFailure: Sendable, Hashable, CustomStringConvertible {
        /// A stable name for the reason.
        public let name: String

        /// Creates a reason with a stable name.
        ///
        /// ```swift
        /// let revoked = RequestError.TLSFailure("certificateRevoked")
        /// ```
        public init(_ name: String) { self.name = name }

        public var description: String { name }

        /// The server's certificate is past its expiry date.
        public static let certificateExpired = Self("certificateExpired")
        /// The server's certificate is not valid yet (its start date is in the future).
        public static let certificateNotYetValid = Self("certificateNotYetValid")
        /// The server's certificate is signed by its own key, and that key is not trusted.
        public static let selfSignedCertificate = Self("selfSignedCertificate")
        /// The server's certificate chain does not lead to a trusted root.
        public static let unknownIssuer = Self("unknownIssuer")
        /// The server's certificate was not issued for the host name or IP address the request is for.
        public static let hostnameMismatch = Self("hostnameMismatch")
        /// The server's public key matches none of the pinned keys.
        public static let pinnedKeyMismatch = Self("pinnedKeyMismatch")
        /// The certificate failed verification for another reason (a bad signature, a wrong purpose, …).
        public static let certificateInvalid = Self("certificateInvalid")
        /// Client and server share no TLS protocol version (RequestKit accepts TLS 1.2 and 1.3).
        public static let protocolVersion = Self("protocolVersion")
        /// Client and server share no cipher suite.
        public static let noSharedCipher = Self("noSharedCipher")
        /// The handshake failed for another reason; the message carries OpenSSL's reason.
        public static let handshakeFailed = Self("handshakeFailed")
        /// The server asked for a client certificate and none was configured.
        public static let clientCertificateRequired = Self("clientCertificateRequired")
        /// The server did not accept the client certificate.
        public static let clientCertificateRejected = Self("clientCertificateRejected")
        /// The TLS configuration could not be used: an unreadable file or PEM, a key that does not match.
        public static let invalidConfiguration = Self("invalidConfiguration")

        /// A sentence naming the host and port, for ``RequestError/description``.
        func message(host: String, port: Int?) -> String {
            let place = port.map { "\(host) port \($0)" } ?? host
            switch self {
            case .certificateExpired: return "The certificate of \(place) has expired"
            case .certificateNotYetValid: return "The certificate of \(place) is not valid yet"
            case .selfSignedCertificate: return "The certificate of \(place) is self-signed and not trusted"
            case .unknownIssuer: return "The certificate of \(place) is issued by an unknown authority"
            case .hostnameMismatch: return "The certificate of \(place) is not valid for \"\(host)\""
            case .pinnedKeyMismatch: return "The public key of \(place) matches no pinned key"
            case .certificateInvalid: return "The certificate of \(place) is invalid"
            case .protocolVersion: return "\(place) supports no TLS version RequestKit accepts (1.2, 1.3)"
            case .noSharedCipher: return "\(place) shares no cipher suite with RequestKit"
            case .handshakeFailed: return "The TLS handshake with \(place) failed"
            case .clientCertificateRequired: return "\(place) requires a client certificate"
            case .clientCertificateRejected: return "\(place) rejected the client certificate"
            case .invalidConfiguration: return "The TLS configuration for \(place) is invalid"
            default: return "The secure (TLS) connection to \(place) failed (\(name))"
            }
        }
    }

    /// A TLS failure, described with the host and port it concerns.
    ///
    /// ```swift
    /// throw RequestError.tlsFailed(.certificateExpired, host: "api.example.com", port: 443)
    /// // The certificate of api.example.com port 443 has expired
    /// ```
    /// - Parameters:
    ///   - failure: Which check or step failed.
    ///   - host: The host the connection was for.
    ///   - port: The port, when known.
    ///   - reason: The TLS library's explanation, added to the message.
    ///   - underlyingError: The error behind it, if any, kept in ``underlyingError``.
    /// - Returns: An error of kind ``Kind/tls`` whose ``tlsFailure`` is `failure` and whose ``connectionFailure``
    ///   is ``ConnectionFailure/secureConnectionFailed``, as URLSession's TLS failures are.
    public static func tlsFailed(
        _ failure: TLSFailure, host: String, port: Int?, reason: String? = nil, underlyingError: (any Error)? = nil
    ) -> RequestError {
        var message = failure.message(host: host, port: port)
        if let reason, !reason.isEmpty { message += " (\(reason))" }
        return RequestError(
            kind: .tls, underlyingError: underlyingError, detail: message,
            connectionFailure: .secureConnectionFailed, tlsFailure: failure)
    }

    /// The TLS failure a URLSession error stands for, if it is one: Apple's certificate error codes, or on Linux
    /// (where FoundationNetworking reports them as code -1) libcurl's message, which carries OpenSSL's
    /// verification text: `SSL certificate problem: self-signed certificate`.
    package static func tlsFailure(for code: URLError.Code, message: String?) -> TLSFailure? {
        switch code {
        case .serverCertificateHasBadDate: return .certificateExpired
        case .serverCertificateNotYetValid: return .certificateNotYetValid
        case .serverCertificateHasUnknownRoot: return .unknownIssuer
        case .clientCertificateRequired: return .clientCertificateRequired
        case .clientCertificateRejected: return .clientCertificateRejected
        default: break
        }
        guard let message else { return nil }
        let curlTexts: [(String, TLSFailure)] = [
            ("SSL certificate problem: certificate has expired", .certificateExpired),
            ("SSL certificate problem: certificate is not yet valid", .certificateNotYetValid),
            ("SSL certificate problem: self-signed certificate in certificate chain", .unknownIssuer),
            ("SSL certificate problem: self-signed certificate", .selfSignedCertificate),
            ("SSL certificate problem: self signed certificate in certificate chain", .unknownIssuer),
            ("SSL certificate problem: self signed certificate", .selfSignedCertificate),
            ("SSL certificate problem: unable to get local issuer certificate", .unknownIssuer),
            ("SSL: no alternative certificate subject name matches target host name", .hostnameMismatch),
        ]
        return curlTexts.first { message.hasPrefix($0.0) }?.1
    }
}

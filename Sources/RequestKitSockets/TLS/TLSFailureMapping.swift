import RequestKitModel

#if canImport(COpenSSL)
import COpenSSL

/// Turns what OpenSSL reports after a failed TLS call (the certificate verification result and the error queue)
/// into a ``RequestError`` of kind ``RequestError/Kind/tls`` with the matching ``RequestError/TLSFailure``.
///
/// ```swift
/// throw TLSFailureMapping(verifyResult: SSL_get_verify_result(ssl), errors: OpenSSLError.drainQueue(),
///     hasClientCertificate: false).error(host: "example.com", port: 443)
/// ```
struct TLSFailureMapping {
    /// `SSL_get_verify_result`: `X509_V_OK` or why the server's certificate failed verification.
    let verifyResult: Int
    /// The error queue, oldest first.
    let errors: [OpenSSLError]
    /// Whether a client certificate was configured (a server's certificate alert is then about it).
    let hasClientCertificate: Bool

    /// The error for a connection to `host` and `port`.
    func error(host: String, port: Int) -> RequestError {
        let (failure, reason) = classify()
        return RequestError.tlsFailed(
            failure, host: host, port: port, reason: reason, underlyingError: errors.first)
    }

    /// The failure and the reason text for the message.
    func classify() -> (RequestError.TLSFailure, String) {
        let sslError = errors.first { $0.isFromSSLLibrary } ?? errors.first
        let reasonCode = sslError?.reason ?? 0
        if verifyResult != Int(X509_V_OK), reasonCode == SSL_R_CERTIFICATE_VERIFY_FAILED || sslError == nil {
            return (Self.failure(forVerifyResult: Int32(truncatingIfNeeded: verifyResult)), verifyText)
        }
        let reason = sslError?.reasonText ?? "no reason given"
        return (failure(forReason: reasonCode), reason)
    }

    private var verifyText: String {
        String(cString: X509_verify_cert_error_string(verifyResult))
    }

    /// The failure an `X509_V_ERR_…` verification result stands for.
    static func failure(forVerifyResult result: Int32) -> RequestError.TLSFailure {
        switch result {
        case X509_V_ERR_CERT_HAS_EXPIRED: .certificateExpired
        case X509_V_ERR_CERT_NOT_YET_VALID: .certificateNotYetValid
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT: .selfSignedCertificate
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
            X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            .unknownIssuer
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: .hostnameMismatch
        default: .certificateInvalid
        }
    }

    /// The failure an `SSL_R_…` reason code (an alert the server sent, or a local check) stands for.
    private func failure(forReason reason: Int32) -> RequestError.TLSFailure {
        switch reason {
        case SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_TLSV1_ALERT_PROTOCOL_VERSION, SSL_R_NO_PROTOCOLS_AVAILABLE,
            SSL_R_VERSION_TOO_LOW, SSL_R_WRONG_SSL_VERSION:
            return .protocolVersion
        case SSL_R_NO_SHARED_CIPHER, SSL_R_NO_CIPHERS_AVAILABLE, SSL_R_NO_CIPHER_MATCH:
            return .noSharedCipher
        case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
            return .clientCertificateRequired
        case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE, SSL_R_TLSV1_ALERT_UNKNOWN_CA,
            SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN, SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE,
            SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED, SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED,
            SSL_R_TLSV1_ALERT_ACCESS_DENIED:
            return hasClientCertificate ? .clientCertificateRejected : .clientCertificateRequired
        default:
            return .handshakeFailed
        }
    }
}
#endif

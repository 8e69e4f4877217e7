import Foundation
import RequestKitModel
import Testing

@testable import RequestKitFeatures
@testable import RequestKitSockets

#if canImport(FoundationNetworking)
import FoundationNetworking
import RequestKitTestSupport
#endif

@Suite("TLS failures", .wallClock)
struct TLSFailureTests {
    @Test("A TLS failure is a .tls error whose message names the host, port and reason")
    func message() {
        let error = RequestError.tlsFailed(
            .certificateExpired, host: "api.example.com", port: 443, reason: "certificate has expired")
        #expect(error.kind == .tls)
        #expect(error.tlsFailure == .certificateExpired)
        #expect(error.connectionFailure == .secureConnectionFailed)
        #expect(
            error.description == "The certificate of api.example.com port 443 has expired (certificate has expired)")
        #expect(
            error.describingRequest("GET https://api.example.com/v1").description
                == "The certificate of api.example.com port 443 has expired (certificate has expired)"
                + " for GET https://api.example.com/v1")
    }

    @Test("TLS failures are not transient: a retry policy does not retry them")
    func notRetried() {
        let error = RequestError.tlsFailed(.unknownIssuer, host: "example.com", port: 443)
        #expect(RetryPolicy.exponential(maxAttempts: 3).isTransient(error) == false)
    }

    @Test(
        "URLSession's certificate errors map to the same TLS failures",
        arguments: [
            (URLError.Code.serverCertificateHasBadDate, nil, RequestError.TLSFailure.certificateExpired),
            (.serverCertificateNotYetValid, nil, .certificateNotYetValid),
            (.serverCertificateHasUnknownRoot, nil, .unknownIssuer),
            (.clientCertificateRequired, nil, .clientCertificateRequired),
            (.clientCertificateRejected, nil, .clientCertificateRejected),
            (.unknown, "SSL certificate problem: certificate has expired", .certificateExpired),
            (.unknown, "SSL certificate problem: certificate is not yet valid", .certificateNotYetValid),
            (.unknown, "SSL certificate problem: self-signed certificate", .selfSignedCertificate),
            (.unknown, "SSL certificate problem: self-signed certificate in certificate chain", .unknownIssuer),
            (.unknown, "SSL certificate problem: unable to get local issuer certificate", .unknownIssuer),
            (
                .unknown, "SSL: no alternative certificate subject name matches target host name 'localhost'",
                .hostnameMismatch
            ),
        ] as [(URLError.Code, String?, RequestError.TLSFailure)])
    func urlSessionMapping(code: URLError.Code, message: String?, expected: RequestError.TLSFailure) {
        #expect(RequestError.tlsFailure(for: code, message: message) == expected)
    }

    @Test("Other URLSession errors are not TLS failures")
    func notTLS() {
        #expect(RequestError.tlsFailure(for: .cannotConnectToHost, message: "Connection refused") == nil)
        #expect(RequestError.tlsFailure(for: .unknown, message: nil) == nil)
    }

    #if os(Linux)
    @Test(
        "OpenSSL's verification results map to TLS failures",
        arguments: [
            (10, RequestError.TLSFailure.certificateExpired),  // X509_V_ERR_CERT_HAS_EXPIRED
            (9, .certificateNotYetValid),  // X509_V_ERR_CERT_NOT_YET_VALID
            (18, .selfSignedCertificate),  // X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT
            (19, .unknownIssuer),  // X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN
            (20, .unknownIssuer),  // X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY
            (21, .unknownIssuer),  // X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE
            (62, .hostnameMismatch),  // X509_V_ERR_HOSTNAME_MISMATCH
            (64, .hostnameMismatch),  // X509_V_ERR_IP_ADDRESS_MISMATCH
            (7, .certificateInvalid),  // X509_V_ERR_CERT_SIGNATURE_FAILURE
        ] as [(Int32, RequestError.TLSFailure)])
    func verifyResults(result: Int32, expected: RequestError.TLSFailure) {
        #expect(TLSFailureMapping.failure(forVerifyResult: result) == expected)
    }
    #endif
}

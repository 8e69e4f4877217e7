import Foundation
import Testing

@testable import RequestKitFeatures
@testable import RequestKitModel
@testable import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Connection failure reasons from each transport's errors")
struct ConnectionFailureMappingTests {
    @Test("URLSession's error codes map to reasons naming the URL's host and port")
    func urlSessionCodes() throws {
        let url = try #require(URL(string: "https://api.example.invalid/v1/users"))
        let place = "api.example.invalid port 443"
        let cases: [(URLError.Code, RequestError.ConnectionFailure, String)] = [
            (.cannotFindHost, .hostNotFound, "Could not find host \"api.example.invalid\""),
            (.dnsLookupFailed, .hostNotFound, "Could not find host \"api.example.invalid\""),
            (.cannotConnectToHost, .connectionRefused, "Connection refused by \(place)"),
            (.networkConnectionLost, .connectionReset, "The connection to \(place) was reset"),
            (.secureConnectionFailed, .secureConnectionFailed, "The secure (TLS) connection to \(place) failed"),
            (.serverCertificateUntrusted, .secureConnectionFailed, "The secure (TLS) connection to \(place) failed"),
        ]
        for (code, failure, message) in cases {
            let error = FoundationMapping.requestError(for: URLError(code), idleTimeout: 60, url: url)
            #expect(error.kind == .transport)
            #expect(error.connectionFailure == failure)
            #expect(error.description == message)
            #expect((error.underlyingError as? URLError)?.code == code)
        }
    }

    @Test("Other URLSession and system errors stay plain transport failures, described without NSError noise")
    func otherErrors() {
        let error = FoundationMapping.requestError(
            for: URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "Weird reply"]), idleTimeout: 60,
            url: URL(string: "http://127.0.0.1:8080/"))
        #expect(error.kind == .transport)
        #expect(error.connectionFailure == nil)
        #expect(error.description == "Transport failure: URLError -1011 (Weird reply)")
        let posix = RequestError.transport(POSIXError(.EHOSTUNREACH))
        #expect(
            posix.description
                == "Transport failure: No route to host (POSIX error \(POSIXErrorCode.EHOSTUNREACH.rawValue))")
    }

    @Test("NativeTransport's resolver and socket errors map to the same reasons")
    func nativeTransportFailures() {
        let key = ConnectionKey(host: "no-such-host.invalid", port: 8080)
        let notFound = NativeTransport.connectError(
            .hostNotFound("Name or service not known"), key: key, connectTimeout: 10)
        #expect(notFound.connectionFailure == .hostNotFound)
        #expect(notFound.description == "Could not find host \"no-such-host.invalid\" (Name or service not known)")
        #expect((notFound.underlyingError as? URLError)?.code == .cannotFindHost)

        let refused = NativeTransport.connectError(.system(POSIXError(.ECONNREFUSED)), key: key, connectTimeout: 10)
        #expect(refused.connectionFailure == .connectionRefused)
        #expect(refused.description == "Connection refused by no-such-host.invalid port 8080")

        let reset = NativeTransport.requestError(
            for: NetworkSocket.Failure.system(POSIXError(.ECONNRESET)), idleTimeout: 5, key: key)
        #expect(reset.connectionFailure == .connectionReset)
        #expect(reset.description == "The connection to no-such-host.invalid port 8080 was reset")

        let unreachable = NativeTransport.connectError(
            .system(POSIXError(.ENETUNREACH)), key: key, connectTimeout: 10)
        #expect(unreachable.connectionFailure == nil)
        #expect(unreachable.detail == "could not connect to no-such-host.invalid port 8080")
    }

    @Test("A refused connection is still transient for the retry policy")
    func refusedIsTransient() {
        let error = RequestError.connectionFailed(
            .connectionRefused, host: "127.0.0.1", port: 9, underlyingError: POSIXError(.ECONNREFUSED))
        #expect(RetryPolicy.exponential().isTransient(error))
    }
}

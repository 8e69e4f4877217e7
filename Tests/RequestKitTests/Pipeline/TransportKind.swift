import Foundation
import RequestKit
import RequestKitTesting
import Testing

/// The transports every pipeline guarantee must hold on, as a test argument.
enum TransportKind: String, CaseIterable, Codable, Sendable, CustomTestStringConvertible {
    case urlSession = "URLSession"
    case http1 = "HTTP1"
    #if os(Linux)
    /// The native transport over TLS, against a ``TestServer`` in its TLS mode (trusting the test CA).
    case http1TLS = "HTTP1 over TLS"
    #endif

    var testDescription: String { rawValue }

    /// The process-wide transport of this kind, which most cells use.
    var shared: any Transport {
        switch self {
        case .urlSession: URLSessionTransport.shared
        case .http1: NativeTransport.shared
        #if os(Linux)
        case .http1TLS: Self.sharedTLS
        #endif
        }
    }

    #if os(Linux)
    private static let sharedTLS = NativeTransport { $0.tls = testCATrust }
    #endif

    /// Trusts the test CA on top of the system's roots.
    private static let testCATrust = TLSConfiguration(
        additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])

    /// A new transport of this kind that opens at most `limit` connections to one host.
    func limited(toConnectionsPerHost limit: Int) -> any Transport {
        switch self {
        case .urlSession: URLSessionTransport(maxConnectionsPerHost: limit)
        case .http1: NativeTransport { $0.maxConnectionsPerHost = limit }
        #if os(Linux)
        case .http1TLS:
            NativeTransport {
                $0.maxConnectionsPerHost = limit
                $0.tls = Self.testCATrust
            }
        #endif
        }
    }

    /// A server for this kind: plain, or in the TLS mode over `https://`.
    func server() throws -> TestServer {
        #if os(Linux)
        if self == .http1TLS { return try TestServer { $0.tls = TestServer.TLS() } }
        #endif
        return try TestServer()
    }
}

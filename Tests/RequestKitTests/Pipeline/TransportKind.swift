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
    /// The native transport over TLS, where ALPN picks HTTP/2: a ``TestServer`` in its TLS and HTTP/2 modes.
    case http2 = "HTTP2"
    #endif

    var testDescription: String { rawValue }

    /// The process-wide transport of this kind, which most cells use.
    var shared: any Transport {
        switch self {
        case .urlSession: URLSessionTransport.shared
        case .http1: NativeTransport.shared
        #if os(Linux)
        case .http1TLS, .http2: Self.sharedTLS
        #endif
        }
    }

    #if os(Linux)
    private static let sharedTLS = NativeTransport { $0.tls = testCATrust }
    #endif

    /// The HTTP version every request of this kind reaches its server over, as ``TestRequest/httpVersion`` says.
    var httpVersion: String {
        #if os(Linux)
        if self == .http2 { return "HTTP/2.0" }
        #endif
        return "HTTP/1.1"
    }

    /// Stops `server` after checking that every request reached it over this kind's HTTP version.
    func finish(_ server: TestServer, sourceLocation: SourceLocation = #_sourceLocation) {
        server.stop()
        for request in server.requests where request.httpVersion != httpVersion {
            Issue.record(
                "\(request.method) \(request.target) arrived over \(request.httpVersion), not \(httpVersion)",
                sourceLocation: sourceLocation)
        }
    }

    /// Trusts the test CA on top of the system's roots.
    private static let testCATrust = TLSConfiguration(
        additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])

    /// A new transport of this kind that opens at most `limit` connections to one host.
    func limited(toConnectionsPerHost limit: Int) -> any Transport {
        switch self {
        case .urlSession: URLSessionTransport(maxConnectionsPerHost: limit)
        case .http1: NativeTransport { $0.maxConnectionsPerHost = limit }
        #if os(Linux)
        case .http1TLS, .http2:
            NativeTransport {
                $0.maxConnectionsPerHost = limit
                $0.tls = Self.testCATrust
            }
        #endif
        }
    }

    /// A server for this kind: plain, in the TLS mode over `https://`, or in the TLS and HTTP/2 modes taking at most
    /// `streams` requests at once on a connection.
    func server(streamsPerConnection streams: Int = 100) throws -> TestServer {
        #if os(Linux)
        if self == .http1TLS { return try TestServer { $0.tls = TestServer.TLS() } }
        if self == .http2 {
            return try TestServer {
                $0.tls = TestServer.TLS()
                $0.http2 = TestServer.HTTP2(maxConcurrentStreams: streams)
            }
        }
        #endif
        return try TestServer()
    }
}

import Foundation
import RequestKitModel
import RequestKitNativeTransport
import RequestKitSockets
import RequestKitTesting
import RequestKitURLSession
import Testing

/// A transport that the wire suites run on, named for test output, with the TLS mode its servers need (if any).
package struct WireTransport: Sendable, CustomTestStringConvertible {
    package let name: String
    package let transport: any Transport
    /// The TLS mode of the ``TestServer`` this transport is tested against; nil for plain `http`.
    package var tls: TestServer.TLS? = nil
    /// The HTTP/2 mode of that server (with `tls`, ALPN picks `h2`); nil for HTTP/1.1 only.
    package var http2: TestServer.HTTP2? = nil
    package var testDescription: String { name }

    /// Every transport that must behave the same on the wire: the wire suites are parameterized over this list. On
    /// Linux it includes the native transport speaking h2c (HTTP/2 with prior knowledge) to a ``TestServer`` in its
    /// HTTP/2 mode.
    package static let all: [WireTransport] = {
        let both = [
            WireTransport(name: "URLSession", transport: URLSessionTransport.shared),
            WireTransport(name: "HTTP1", transport: NativeTransport.shared),
        ]
        #if os(Linux)
        return both + [h2c]
        #else
        return both
        #endif
    }()

    /// The native transport speaking HTTP/2 with prior knowledge over plain TCP, against TestServer's HTTP/2 mode.
    package static let h2c = WireTransport(
        name: "HTTP2 (h2c)", transport: NativeTransport { $0.http2 = .priorKnowledge }, http2: TestServer.HTTP2())

    /// ``all``, and on Linux the native transport over TLS against a TLS ``TestServer`` (trusting the test CA), over
    /// HTTP/1.1 and over HTTP/2.
    package static let withTLS: [WireTransport] = {
        #if os(Linux)
        return all + [nativeTLS, http2]
        #else
        return all
        #endif
    }()

    /// The native transport speaking https, trusting the test CA on top of the system's roots.
    package static let nativeTLS = WireTransport(
        name: "HTTP1 over TLS",
        transport: NativeTransport {
            $0.tls = TLSConfiguration(additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])
        },
        tls: TestServer.TLS())

    /// The native transport speaking HTTP/2 over TLS, against a ``TestServer`` in its TLS and HTTP/2 modes.
    package static let http2 = WireTransport(
        name: "HTTP2", transport: nativeTLS.transport, tls: TestServer.TLS(), http2: TestServer.HTTP2())

    /// The HTTP version requests reach the server over, as ``TestRequest/httpVersion`` says.
    package var httpVersion: String { http2 == nil ? "HTTP/1.1" : "HTTP/2.0" }

    /// A server for this transport: plain, or in the TLS mode over `https://`.
    package func server(_ configure: (inout TestServer.Configuration) -> Void = { _ in }) throws -> TestServer {
        try TestServer {
            configure(&$0)
            $0.tls = tls
            $0.http2 = http2
        }
    }
}

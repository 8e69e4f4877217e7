import Foundation
import RequestKit
import Testing

/// The httpbin server that `Scripts/start-httpbin.sh` started, named by `REQUESTKIT_HTTPBIN_URL`.
/// When the variable is not set the interop suites report themselves skipped.
enum HTTPBin {
    static let baseURL: URL? = ProcessInfo.processInfo.environment["REQUESTKIT_HTTPBIN_URL"].flatMap(URL.init(string:))

    static var isAvailable: Bool { baseURL != nil }

    /// A URL on the server, such as `url("/get?a=1")`.
    static func url(_ pathAndQuery: String) -> String {
        (baseURL?.absoluteString ?? "http://127.0.0.1:9") + pathAndQuery
    }

    /// The ALPN protocol the native transport must speak to the server (`h2` or `http/1.1`), from
    /// `REQUESTKIT_HTTPBIN_EXPECT_PROTOCOL`; nil when the run does not say.
    static let expectedProtocol: String? = ProcessInfo.processInfo.environment["REQUESTKIT_HTTPBIN_EXPECT_PROTOCOL"]

    /// Whether the server is reached over `https://` (nginx with the test certificate in front of httpbin, as
    /// `Scripts/start-httpbin-tls.sh` starts it).
    static var isHTTPS: Bool { baseURL?.scheme == "https" }

    /// The transports every interop test runs on.
    ///
    /// Over `https://` on Linux only the native transport runs: it trusts OpenSSL's default verify paths, which
    /// `SSL_CERT_FILE` points at a bundle holding the test CA, while URLSession there (libcurl) always reads the
    /// system bundle and no setting of a release toolchain points it at another one.
    static let transports: [TransportCase] = {
        let native = TransportCase(name: "Native", transport: NativeTransport.shared)
        #if os(Linux)
        if isHTTPS { return [native] }
        #endif
        return [TransportCase(name: "URLSession", transport: URLSessionTransport.shared), native]
    }()
}

/// A transport under test, named for test output.
struct TransportCase: Sendable, CustomTestStringConvertible {
    let name: String
    let transport: any Transport
    var testDescription: String { name }
}

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

    /// The transports every interop test runs on.
    static let transports: [TransportCase] = [TransportCase(name: "URLSession", transport: URLSessionTransport.shared)]
}

/// A transport under test, named for test output.
struct TransportCase: Sendable, CustomTestStringConvertible {
    let name: String
    let transport: any Transport
    var testDescription: String { name }
}

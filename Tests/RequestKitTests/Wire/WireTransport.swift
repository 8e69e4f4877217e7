import RequestKit
import Testing

/// A transport that the wire suites run on, named for test output.
struct WireTransport: Sendable, CustomTestStringConvertible {
    let name: String
    let transport: any Transport
    var testDescription: String { name }

    /// Every transport that must behave the same on the wire: the wire suites are parameterized over this list.
    static let all: [WireTransport] = [
        WireTransport(name: "URLSession", transport: URLSessionTransport.shared),
        WireTransport(name: "HTTP1", transport: HTTP1Transport.shared),
    ]
}

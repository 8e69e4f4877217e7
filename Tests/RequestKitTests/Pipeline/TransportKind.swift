import RequestKit
import Testing

/// The transports every pipeline guarantee must hold on, as a test argument.
enum TransportKind: String, CaseIterable, Codable, Sendable, CustomTestStringConvertible {
    case urlSession = "URLSession"
    case http1 = "HTTP1"

    var testDescription: String { rawValue }

    /// The process-wide transport of this kind, which most cells use.
    var shared: any Transport {
        switch self {
        case .urlSession: URLSessionTransport.shared
        case .http1: HTTP1Transport.shared
        }
    }

    /// A new transport of this kind that opens at most `limit` connections to one host.
    func limited(toConnectionsPerHost limit: Int) -> any Transport {
        switch self {
        case .urlSession: URLSessionTransport(maxConnectionsPerHost: limit)
        case .http1: HTTP1Transport { $0.maxConnectionsPerHost = limit }
        }
    }
}

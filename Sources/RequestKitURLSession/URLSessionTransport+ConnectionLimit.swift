import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// The connections per host a transport opens unless told otherwise: 6, URLSession's own default.
    ///
    /// ```swift
    /// let transport = URLSessionTransport(maxConnectionsPerHost: URLSessionTransport.defaultMaxConnectionsPerHost * 2)
    /// ```
    public static let defaultMaxConnectionsPerHost = 6

    /// Creates a transport with its own session that opens at most `maxConnectionsPerHost` connections to one
    /// host at once; further requests to that host wait for a connection.
    ///
    /// ```swift
    /// let transport = URLSessionTransport(maxConnectionsPerHost: 16)
    /// let results = try await RequestGroup(maxConcurrent: 12) {
    ///     for id in 1...100 { Request { Url("http://127.0.0.1:8080/todos/\(id)"); Using(transport) } }
    /// }.send()
    /// ```
    /// - Parameter maxConnectionsPerHost: The most connections to one host; values below 1 count as 1.
    public convenience init(maxConnectionsPerHost: Int) {
        let configuration = Self.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = max(1, maxConnectionsPerHost)
        self.init(configuration: configuration)
    }

    /// The most connections this transport opens to one host at once.
    ///
    /// ```swift
    /// print(URLSessionTransport.shared.maxConnectionsPerHost)  // 6
    /// ```
    public var maxConnectionsPerHost: Int { session.configuration.httpMaximumConnectionsPerHost }
}

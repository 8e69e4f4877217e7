import Foundation

/// A port on `127.0.0.1` that refuses every connection, reserved for as long as the value lives.
///
/// Use it to test what your code does when a server is down. Unlike the port of a stopped ``TestServer``, it
/// cannot be taken meanwhile by a server that a test running in parallel starts, so the connection is refused
/// every time.
///
/// ```swift
/// let down = try RefusingPort()
/// let error = try await #require(throws: RequestError.self) {
///     try await Request { Url(down.url("/health")) }.send()
/// }
/// #expect(error.kind == .transport)
/// ```
public final class RefusingPort: Sendable {
    private let socket: SocketDescriptor

    /// The reserved port.
    ///
    /// ```swift
    /// let address = "127.0.0.1:\(down.port)"
    /// ```
    public let port: Int

    /// Reserves a free port: a socket bound to it that never listens.
    ///
    /// ```swift
    /// let down = try RefusingPort()
    /// ```
    /// - Throws: An error naming the failing socket call.
    public init() throws {
        socket = try SocketDescriptor.bindOnLoopback(reusingAddress: false)
        do {
            port = try socket.localPort()
        } catch {
            socket.close()
            throw error
        }
    }

    deinit {
        socket.close()
    }

    /// A URL on the refusing port, such as `http://127.0.0.1:PORT/health`.
    ///
    /// ```swift
    /// let url = down.url("/health")
    /// ```
    /// - Parameter path: The path and optional query; a missing leading `/` is added.
    /// - Returns: The absolute URL.
    public func url(_ path: String = "/") -> URL {
        let path = path.hasPrefix("/") ? path : "/" + path
        return URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }
}

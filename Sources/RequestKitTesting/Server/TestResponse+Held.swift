import Foundation

extension TestResponse {
    /// A copy of this response that the server holds back, sending nothing, until `isReleased` returns `true` or
    /// `longest` has passed (then it waits for ``delay`` as usual).
    ///
    /// The server's event loop asks `isReleased` on a timer (every few milliseconds at first, then less often, at most
    /// 100 ms apart), so it must answer at once (read a flag or a counter). Unlike a route handler that waits, a held response holds none of the server's threads; the request
    /// counts as active meanwhile, and a client that leaves ends it and is counted as aborted.
    ///
    /// ```swift
    /// server.route("/held") { _ in TestResponse.text("released").held { gate.isOpen } }
    /// ```
    /// - Parameters:
    ///   - longest: The longest the response is held.
    ///   - isReleased: Whether the response may go.
    /// - Returns: The held response.
    func held(longest: Duration = .seconds(300), until isReleased: @escaping @Sendable () -> Bool) -> TestResponse {
        var response = self
        response.hold = ResponseHold(longest: longest, isReleased: isReleased)
        return response
    }
}

import Foundation

/// A wait before a response is sent that lasts until a condition holds: the server's event loop asks the condition
/// every few milliseconds on a timer, so a test can hold a request open for as long as it needs without holding one
/// of the server's threads in a route handler that waits.
///
/// ```swift
/// let hold = ResponseHold(longest: .seconds(300)) { gate.isOpen }
/// ```
struct ResponseHold: Sendable {
    /// How often the loop asks ``isReleased``.
    static let checkInterval: Duration = .milliseconds(5)

    /// The longest the response is held when ``isReleased`` never returns `true`.
    let longest: Duration
    /// Whether the response may go; asked on the server's event loop, so it must answer at once.
    let isReleased: @Sendable () -> Bool
}

import Foundation

/// A wait before a response is sent that lasts until a condition holds: the server's event loop asks the condition on
/// a timer, every few milliseconds at first and less often the longer the wait (at most ``longestCheckInterval``
/// apart, so that a hundred held requests cost the shared loops little), and a test can hold a request open for as long
/// as it needs without holding one of the server's threads in a route handler that waits.
///
/// ```swift
/// let hold = ResponseHold(longest: .seconds(300)) { gate.isOpen }
/// ```
struct ResponseHold: Sendable {
    /// The wait before the loop asks ``isReleased`` again the first time; each wait after is twice the one before.
    static let firstCheckInterval: Duration = .milliseconds(5)
    /// The longest wait between two questions.
    static let longestCheckInterval: Duration = .milliseconds(100)

    /// The longest the response is held when ``isReleased`` never returns `true`.
    let longest: Duration
    /// Whether the response may go; asked on the server's event loop, so it must answer at once.
    let isReleased: @Sendable () -> Bool
}

import Foundation

/// Waits while watching a connection for the client going away.
///
/// ```swift
/// let stillThere = ConnectionWatch.wait(.seconds(2), on: socket)
/// ```
enum ConnectionWatch {
    /// How often the socket is checked while waiting.
    static let pollInterval: Duration = .milliseconds(10)

    /// Sleeps for `duration`, checking the socket every ~10 ms; returns `false` as soon as the peer is gone.
    static func wait(_ duration: Duration, on socket: ConnectionStream) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        while true {
            if socket.isPeerGone() { return false }
            let remaining = clock.now.duration(to: deadline)
            if remaining <= .zero { return true }
            Thread.sleep(forTimeInterval: min(remaining, pollInterval).timeInterval)
        }
    }
}

import Foundation

/// Waits while watching a connection for the client going away.
///
/// ```swift
/// let stillThere = ConnectionWatch.wait(.seconds(2), on: socket)
/// ```
enum ConnectionWatch {
    /// How soon the socket is checked again when the client has sent more bytes (a pipelined request) while
    /// the handler waits: those bytes keep it readable, so waiting for readability would return at once.
    static let pollInterval: Duration = .milliseconds(10)

    /// The longest single wait for the socket to change. `TestServer.stop()` shuts every connection down, which
    /// wakes the wait at once; the cap only bounds a wait that platform does not wake.
    static let longestWait: Duration = .seconds(1)

    /// Sleeps for `duration`, waking as soon as the client closes the connection (or the server stops); returns
    /// `false` when the peer is gone.
    static func wait(_ duration: Duration, on socket: ConnectionStream) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        while true {
            if socket.isPeerGone() { return false }
            let remaining = clock.now.duration(to: deadline)
            if remaining <= .zero { return true }
            switch socket.waitForReadable(milliseconds: min(remaining, longestWait).pollMilliseconds) {
            case .timedOut: continue
            case .hungUp: return false
            case .readable: Thread.sleep(forTimeInterval: min(remaining, pollInterval).timeInterval)
            }
        }
    }
}

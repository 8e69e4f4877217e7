import Foundation

extension Duration {
    /// The duration in seconds as a `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// The duration in whole milliseconds, clamped to what `poll()` accepts.
    var pollMilliseconds: Int32 {
        Int32(clamping: Int((timeInterval * 1000).rounded(.up)))
    }
}

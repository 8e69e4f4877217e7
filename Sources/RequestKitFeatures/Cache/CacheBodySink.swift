import Foundation

/// Where a body goes while it streams, on its way into a ``CacheStore``: written chunk by chunk up to a limit,
/// then stored whole when the body has ended, or let go of when it will not end.
///
/// ```swift
/// if let sink = store.bodySink(for: key, response: head, limit: 16 << 20) {
///     guard sink.write(chunk) else { return }   // past the limit: the sink has let go
///     sink.commit()
/// }
/// ```
protocol CacheBodySink: AnyObject {
    /// Adds `chunk`; false when the sink gives up (past its limit, or a write failed), having let go of what it
    /// held.
    func write(_ chunk: Data) -> Bool
    /// Stores the response with the body written, which is whole.
    func commit()
    /// Lets go of what was written; nothing is stored.
    func discard()
}

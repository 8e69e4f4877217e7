import Foundation

/// Sees a streamed body's chunks as its consumer reads them, and how the body ends: what a response cache uses to
/// store a body while it streams, without reading it itself (the consumer's pace stays the transfer's pace).
///
/// Calls come from the consumer's task, one at a time and in order, except ``abandoned()``, which may come from
/// any thread (a cancelled task, a dropped stream, a passed deadline) and at most once; an implementation ignores
/// whatever comes after it.
///
/// ```swift
/// streaming.body.buffer.setTap(entry)   // entry.received(chunk)… then entry.ended() or entry.abandoned()
/// ```
package protocol ResponseBodyTap: AnyObject, Sendable {
    /// The consumer read `chunk`.
    func received(_ chunk: Data)
    /// The consumer read the end of the body: every chunk has been received.
    func ended()
    /// The body will not be read to its end: it failed, its deadline passed, or its consumer stopped or went.
    func abandoned()
}

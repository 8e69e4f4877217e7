import Foundation
import RequestKitModel

/// A response being stored while its body streams to its consumer: each chunk the consumer reads goes to a
/// ``CacheBodySink``, which stores the response when the consumer reads the end, and lets go of it when the body
/// fails, is cancelled or passes the sink's limit. Nothing is stored from a body that was not read to its end.
///
/// ```swift
/// if let entry = cache.streamedEntry(for: head, to: request, requestTime: sent) {
///     streaming.body.buffer.setTap(entry)
/// }
/// ```
final class StreamedCacheEntry: ResponseBodyTap, @unchecked Sendable {
    // Safe: every access to `sink` holds `lock`.
    private let lock = NSLock()
    private var sink: (any CacheBodySink)?

    init(_ sink: any CacheBodySink) { self.sink = sink }

    deinit { sink?.discard() }

    func received(_ chunk: Data) {
        lock.withLock {
            guard let sink, !sink.write(chunk) else { return }
            self.sink = nil
        }
    }

    func ended() { take()?.commit() }

    func abandoned() { take()?.discard() }

    private func take() -> (any CacheBodySink)? {
        lock.withLock {
            defer { sink = nil }
            return sink
        }
    }
}

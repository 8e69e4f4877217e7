/// The results of polling a request, one per tick, for as long as the consuming task iterates.
///
/// Requests are sent as the sequence is iterated: the next one starts an interval after the previous
/// result, so two never overlap and a slow consumer never lets requests pile up. The sequence ends when the
/// consuming task is cancelled, when the `until` condition holds, or after the maximum count or duration; the
/// iterator's ``Iterator/end`` says which.
///
/// ```swift
/// for await result in request.poll(every: .seconds(10), maxCount: 6) {
///     if let json = try? result.response?.json() { print(json.status.string ?? "") }
/// }
/// ```
public struct PollSequence: AsyncSequence, Sendable {
    /// One result per tick.
    public typealias Element = PollResult

    let poller: Poller

    /// Returns an iterator that sends the first request when first asked.
    public func makeAsyncIterator() -> Iterator {
        Iterator(poller: poller)
    }

    /// Polls the request, one tick per call to `next()`.
    ///
    /// ```swift
    /// var iterator = request.poll(every: .seconds(1)).makeAsyncIterator()
    /// let first = await iterator.next()
    /// ```
    public struct Iterator: AsyncIteratorProtocol {
        var poller: Poller

        /// How polling ended: nil while it goes on, set with the last result (or, on cancellation, when `next()`
        /// returns nil). Iterate by hand to read it:
        ///
        /// ```swift
        /// var polling = job.poll(every: .seconds(5), until: { (try? $0.json().done.bool) == true },
        ///                        maxDuration: .seconds(300)).makeAsyncIterator()
        /// while let result = await polling.next() { print(result) }
        /// if polling.end == .maxDuration { print("gave up after five minutes") }
        /// ```
        public var end: PollEnd? { poller.end }

        /// Waits for the next tick and returns its result, or nil when polling is over.
        public mutating func next() async -> PollResult? {
            await poller.next()?.result
        }
    }
}

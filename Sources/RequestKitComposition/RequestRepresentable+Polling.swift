import Foundation

extension RequestRepresentable {
    /// Polls the request: one request per tick, results as an asynchronous sequence.
    ///
    /// The first request is sent at once; each next one `interval` after the previous result (longer after
    /// failures, following `backoff`). Responses are validated: a failure is a `.failed` element, not the end.
    /// When `conditional` (the default) and the server sent `ETag` or `Last-Modified`, the next request sends
    /// `If-None-Match` / `If-Modified-Since`, and a `304 Not Modified` is reported as `.unchanged`.
    ///
    /// ```swift
    /// for await result in request.poll(every: .seconds(5), until: { $0.headers["X-State"] == "done" }) {
    ///     print(result)
    /// }
    /// ```
    /// - Parameters:
    ///   - interval: The wait between one result and the next request; at least 10 ms.
    ///   - until: Ends polling after a new response for which this returns true (that response is delivered).
    ///   - maxCount: Ends polling after this many results.
    ///   - maxDuration: Ends polling when the next request would start later than this after the first.
    ///   - backoff: How the wait grows after failures in a row.
    ///   - conditional: Whether to send conditional requests when the server offers validators.
    /// - Returns: The results, one per request.
    public func poll(
        every interval: Duration, until: (@Sendable (Response) -> Bool)? = nil, maxCount: Int? = nil,
        maxDuration: Duration? = nil, backoff: Backoff = .exponential(), conditional: Bool = true
    ) -> PollSequence {
        PollSequence(
            poller: Poller(
                request: request, interval: interval, backoff: backoff, isConditional: conditional, until: until,
                maxCount: maxCount, maxDuration: maxDuration))
    }

    /// Sends the request every `seconds` in the background, running its handlers on each result, until the
    /// returned handle is cancelled.
    ///
    /// Exactly one request per tick: the next starts `seconds` after the previous result, so they never overlap.
    /// A new response runs the handlers as ``Request/call(on:)`` does; a failure runs `onError` and backs off; a
    /// `304 Not Modified` to a conditional request runs no handler, since nothing changed. Stopping does not
    /// report the cancelled request.
    ///
    /// ```swift
    /// let updates = Request { Url("http://127.0.0.1:8080/json") }
    ///     .onJson { json in print(json.slideshow.title.string ?? "") }
    ///     .onError { error in print(error) }
    ///     .update(every: 10)
    /// updates.cancel()
    /// ```
    /// - Parameters:
    ///   - seconds: The wait between one result and the next request; at least 10 ms.
    ///   - queue: The queue to run handlers on, or nil for a background task.
    ///   - backoff: How the wait grows after failures in a row.
    ///   - conditional: Whether to send conditional requests when the server offers validators.
    /// - Returns: A handle that stops the updates, or waits until they stop.
    @discardableResult
    public func update(
        every seconds: Double, on queue: DispatchQueue? = nil, backoff: Backoff = .exponential(),
        conditional: Bool = true
    ) -> RequestHandle {
        let request = self.request
        let interval = RequestClock.duration(seconds: seconds)
        let poller = Poller(request: request, interval: interval, backoff: backoff, isConditional: conditional)
        return RequestHandle(label: { "updates of " + request.inFlightLabel }) {
            var poller = poller
            while let tick = await poller.next() {
                if tick.result.isUnchanged { continue }
                await request.runCallbacks(for: tick.sent, on: queue)
            }
        }
    }
}

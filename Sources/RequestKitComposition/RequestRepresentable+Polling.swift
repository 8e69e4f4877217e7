import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitSending

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
    /// returned handle is cancelled or, as
    /// ``poll(every:until:maxCount:maxDuration:backoff:conditional:)-(Double,_,_,_,_,_)`` ends, the `until`
    /// condition holds or the maximum count or duration is reached. To be told which, pass a `completion` handler.
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
    ///   - until: Ends the updates after a new response for which this returns true (its handlers run first).
    ///   - maxCount: Ends the updates after this many requests.
    ///   - maxDuration: Ends the updates when the next request would start later than this many seconds after
    ///     the first.
    ///   - backoff: How the wait grows after failures in a row.
    ///   - conditional: Whether to send conditional requests when the server offers validators.
    /// - Returns: A handle that stops the updates, or waits until they stop.
    @discardableResult
    public func update(
        every seconds: Double, on queue: DispatchQueue? = nil, until: (@Sendable (Response) -> Bool)? = nil,
        maxCount: Int? = nil, maxDuration: Double? = nil, backoff: Backoff = .exponential(),
        conditional: Bool = true
    ) -> RequestHandle {
        startUpdates(
            every: RequestClock.duration(seconds: seconds), on: queue, until: until, maxCount: maxCount,
            maxDuration: maxDuration.map { RequestClock.duration(seconds: $0) }, backoff: backoff,
            conditional: conditional, completion: nil)
    }

    /// Sends the request every `seconds` in the background, running its handlers on each result, then tells
    /// `completion` how the updates ended: the `until` condition held, the maximum count or duration was reached,
    /// or the handle was cancelled.
    ///
    /// ```swift
    /// let updates = Request { Url("http://127.0.0.1:8080/jobs/7") }
    ///     .onJson { json in print(json.state.string ?? "") }
    ///     .update(every: 10, until: { (try? $0.json().state.string) == "done" }, maxDuration: 600) { end in
    ///         print("updates ended: \(end)")   // .conditionMet, .maxDuration or .cancelled
    ///     }
    /// await updates.wait()
    /// ```
    /// - Parameters:
    ///   - seconds: The wait between one result and the next request; at least 10 ms.
    ///   - queue: The queue to run the handlers and `completion` on, or nil for a background task.
    ///   - until: Ends the updates after a new response for which this returns true (its handlers run first).
    ///   - maxCount: Ends the updates after this many requests.
    ///   - maxDuration: Ends the updates when the next request would start later than this many seconds after
    ///     the first.
    ///   - backoff: How the wait grows after failures in a row.
    ///   - conditional: Whether to send conditional requests when the server offers validators.
    ///   - completion: Told how the updates ended, after the last handlers ran.
    /// - Returns: A handle that stops the updates, or waits until they stop and `completion` has run.
    @discardableResult
    public func update(
        every seconds: Double, on queue: DispatchQueue? = nil, until: (@Sendable (Response) -> Bool)? = nil,
        maxCount: Int? = nil, maxDuration: Double? = nil, backoff: Backoff = .exponential(),
        conditional: Bool = true, completion: @escaping @Sendable (PollEnd) -> Void
    ) -> RequestHandle {
        startUpdates(
            every: RequestClock.duration(seconds: seconds), on: queue, until: until, maxCount: maxCount,
            maxDuration: maxDuration.map { RequestClock.duration(seconds: $0) }, backoff: backoff,
            conditional: conditional, completion: completion)
    }

    /// Sends the request every `interval` in the background, running its handlers on each result: `update(every:)`
    /// with `Duration`s.
    ///
    /// ```swift
    /// let updates = status.onJson { print($0) }.update(every: .seconds(10), maxDuration: .seconds(600))
    /// updates.cancel()
    /// ```
    /// - Parameters:
    ///   - interval: The wait between one result and the next request; at least 10 ms.
    ///   - queue: The queue to run handlers on, or nil for a background task.
    ///   - until: Ends the updates after a new response for which this returns true (its handlers run first).
    ///   - maxCount: Ends the updates after this many requests.
    ///   - maxDuration: Ends the updates when the next request would start later than this after the first.
    ///   - backoff: How the wait grows after failures in a row.
    ///   - conditional: Whether to send conditional requests when the server offers validators.
    /// - Returns: A handle that stops the updates, or waits until they stop.
    @discardableResult
    public func update(
        every interval: Duration, on queue: DispatchQueue? = nil, until: (@Sendable (Response) -> Bool)? = nil,
        maxCount: Int? = nil, maxDuration: Duration? = nil, backoff: Backoff = .exponential(),
        conditional: Bool = true
    ) -> RequestHandle {
        startUpdates(
            every: interval, on: queue, until: until, maxCount: maxCount, maxDuration: maxDuration,
            backoff: backoff, conditional: conditional, completion: nil)
    }

    /// Sends the request every `interval` in the background, running its handlers on each result, then tells
    /// `completion` how the updates ended: `update(every:completion:)` with `Duration`s.
    ///
    /// ```swift
    /// let updates = status.onJson { print($0) }.update(every: .seconds(10), maxCount: 6) { end in print(end) }
    /// await updates.wait()
    /// ```
    /// - Parameters:
    ///   - interval: The wait between one result and the next request; at least 10 ms.
    ///   - queue: The queue to run the handlers and `completion` on, or nil for a background task.
    ///   - until: Ends the updates after a new response for which this returns true (its handlers run first).
    ///   - maxCount: Ends the updates after this many requests.
    ///   - maxDuration: Ends the updates when the next request would start later than this after the first.
    ///   - backoff: How the wait grows after failures in a row.
    ///   - conditional: Whether to send conditional requests when the server offers validators.
    ///   - completion: Told how the updates ended, after the last handlers ran.
    /// - Returns: A handle that stops the updates, or waits until they stop and `completion` has run.
    @discardableResult
    public func update(
        every interval: Duration, on queue: DispatchQueue? = nil, until: (@Sendable (Response) -> Bool)? = nil,
        maxCount: Int? = nil, maxDuration: Duration? = nil, backoff: Backoff = .exponential(),
        conditional: Bool = true, completion: @escaping @Sendable (PollEnd) -> Void
    ) -> RequestHandle {
        startUpdates(
            every: interval, on: queue, until: until, maxCount: maxCount, maxDuration: maxDuration,
            backoff: backoff, conditional: conditional, completion: completion)
    }

    /// The one update loop behind every `update(every:)`. A completion handler is a separate overload, not an
    /// optional parameter, so that a trailing closure binds to it rather than to `until`.
    private func startUpdates(
        every interval: Duration, on queue: DispatchQueue?, until: (@Sendable (Response) -> Bool)?, maxCount: Int?,
        maxDuration: Duration?, backoff: Backoff, conditional: Bool, completion: (@Sendable (PollEnd) -> Void)?
    ) -> RequestHandle {
        let request = self.request
        let poller = Poller(
            request: request, interval: interval, backoff: backoff, isConditional: conditional, until: until,
            maxCount: maxCount, maxDuration: maxDuration)
        return RequestHandle(label: { "updates of " + request.inFlightLabel }) {
            var poller = poller
            while let tick = await poller.next() {
                if tick.result.isUnchanged { continue }
                await request.runCallbacks(for: tick.sent, on: queue)
            }
            if let completion, let end = poller.end {
                await HandlerQueue.perform(on: queue) { completion(end) }
            }
        }
    }
}

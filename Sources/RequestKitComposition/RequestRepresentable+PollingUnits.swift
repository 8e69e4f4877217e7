import Foundation
import RequestKitDSL
import RequestKitModel

extension RequestRepresentable {
    /// Polls the request every `seconds`: `poll(every:until:maxCount:maxDuration:backoff:conditional:)` with the
    /// interval in seconds.
    ///
    /// ```swift
    /// for await result in status.poll(every: 2, maxCount: 10) { print(result) }
    /// ```
    /// - Parameters:
    ///   - seconds: The wait between one result and the next request; a negative or non-finite value counts as 0.
    ///   - until: Ends polling after a new response for which this returns true (that response is delivered).
    ///   - maxCount: Ends polling after this many results.
    ///   - maxDuration: Ends polling when the next request would start later than this many seconds after the first.
    ///   - backoff: How the wait grows after failures in a row.
    ///   - conditional: Whether to send conditional requests when the server offers validators.
    /// - Returns: The results, one per request.
    public func poll(
        every seconds: Double, until: (@Sendable (Response) -> Bool)? = nil, maxCount: Int? = nil,
        maxDuration: Double? = nil, backoff: Backoff = .exponential(), conditional: Bool = true
    ) -> PollSequence {
        poll(
            every: Self.duration(seconds), until: until, maxCount: maxCount,
            maxDuration: maxDuration.map(Self.duration),
            backoff: backoff, conditional: conditional)
    }

    /// Seconds as a duration; a negative or non-finite value counts as 0.
    private static func duration(_ seconds: Double) -> Duration {
        .seconds(seconds.isFinite ? max(0, seconds) : 0)
    }
}

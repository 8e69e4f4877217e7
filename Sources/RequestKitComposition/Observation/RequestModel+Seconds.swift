import RequestKitModel

#if canImport(Observation)
extension RequestModel {
    /// Starts polling every `seconds`: `startPolling(every:backoff:)` with the interval in seconds.
    ///
    /// ```swift
    /// model.startPolling(every: 30)
    /// ```
    /// - Parameters:
    ///   - seconds: The wait between one result and the next request; a negative or non-finite value counts as 0.
    ///   - backoff: How the wait grows after failures in a row.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    public func startPolling(every seconds: Double, backoff: Backoff = .exponential()) {
        startPolling(every: .seconds(seconds.isFinite ? max(0, seconds) : 0), backoff: backoff)
    }
}
#endif

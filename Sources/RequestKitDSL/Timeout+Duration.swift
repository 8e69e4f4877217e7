import RequestKitModel

extension Timeout {
    /// Sets a limit given as a `Duration`. A limit that is not positive is reported when the request is built.
    ///
    /// ```swift
    /// Timeout(.seconds(5))
    /// Timeout(.milliseconds(1500), for: .resource)
    /// ```
    public init(_ duration: Duration, for kind: Kind = .request) {
        self.init(Backoff.seconds(duration), for: kind)
    }
}

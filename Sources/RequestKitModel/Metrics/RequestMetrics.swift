import Foundation

/// Where a request's time went: one ``Attempt`` per trip to the network, in order (a retry and each redirect hop
/// is an attempt of its own), each with the phases its transport saw.
///
/// Every response the pipeline hands over carries them (``Response/metrics``), a streamed response once its body
/// has ended (``StreamingResponse/metrics``), and a ``RequestError`` once a phase was reached
/// (``RequestError/metrics``). The native transport reports every phase; `URLSessionTransport` reports what
/// FoundationNetworking gives (on Linux: the attempt's start and end, the first response byte and the byte counts),
/// and leaves the rest `nil`.
///
/// ```swift
/// let response = try await Request { Url("http://127.0.0.1:8080/todos") }.send()
/// if let attempt = response.metrics.attempts.last {
///     print(attempt.timeline)  // dns 0.2 ms · connect 0.1 ms · send 0.0 ms · wait 0.4 ms · body 0.1 ms
/// }
/// ```
public struct RequestMetrics: Sendable, Hashable {
    /// The attempts, in the order they were made; empty for a response made by hand or answered without one.
    ///
    /// ```swift
    /// let redirects = response.metrics.attempts.count - 1
    /// ```
    public var attempts: [Attempt] {
        get {
            guard let unbuilt else { return built }
            return built + [unbuilt.attempt]
        }
        set {
            built = newValue
            unbuilt = nil
        }
    }

    private var built: [Attempt]
    /// The last attempt as its transport recorded it, made into an ``Attempt`` only when read: most responses'
    /// metrics never are, and building one costs more than keeping what it is built from.
    private var unbuilt: (any UnbuiltAttempt)?

    /// Creates metrics from their attempts.
    ///
    /// ```swift
    /// let none = RequestMetrics()
    /// ```
    public init(attempts: [Attempt] = []) {
        built = attempts
    }

    /// Metrics of one attempt, built from `attempt` when first read.
    package init(building attempt: any UnbuiltAttempt) {
        built = []
        unbuilt = attempt
    }

    /// From the start of the first attempt to the end of the last; nil without attempts or while a body streams.
    ///
    /// ```swift
    /// if let total = response.metrics.duration { print("took \(total)") }
    /// ```
    public var duration: Duration? {
        let attempts = attempts
        guard let first = attempts.first, let end = attempts.last?.end else { return nil }
        return first.start.duration(to: end)
    }

    /// Whether two metrics hold the same attempts.
    ///
    /// ```swift
    /// let unchanged = before.metrics == after.metrics
    /// ```
    public static func == (left: RequestMetrics, right: RequestMetrics) -> Bool {
        left.attempts == right.attempts
    }

    /// Hashes the attempts.
    ///
    /// ```swift
    /// let seen: Set<RequestMetrics> = [response.metrics]
    /// ```
    public func hash(into hasher: inout Hasher) {
        hasher.combine(attempts)
    }
}

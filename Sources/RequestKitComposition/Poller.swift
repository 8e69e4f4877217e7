import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitPipeline
import RequestKitSending

/// The state of a polling loop: sends one request per tick, never two at once, remembering the validators for
/// conditional requests and the failures in a row for backoff.
struct Poller: Sendable {
    /// What one tick produced: the result to report, and the response or error as sent, before validation.
    struct Tick: Sendable {
        let result: PollResult
        let sent: Result<Response, RequestError>
    }

    /// The shortest wait between polls, whatever interval was asked for, so that a zero interval cannot flood a
    /// server; failures still back off from it.
    static let minimumInterval = Duration.milliseconds(10)

    let request: Request
    let interval: Duration
    let backoff: Backoff
    let isConditional: Bool
    let until: (@Sendable (Response) -> Bool)?
    let maxCount: Int?
    let maxDuration: Duration?
    let clock: RequestClock

    private var entityTag: String?
    private var lastModified: String?
    private var failures = 0
    private var count = 0
    private var startedAt: Duration?
    private var nextDelay: Duration?
    /// How polling ended, once it has.
    private(set) var end: PollEnd?

    init(
        request: Request, interval: Duration, backoff: Backoff, isConditional: Bool,
        until: (@Sendable (Response) -> Bool)? = nil, maxCount: Int? = nil, maxDuration: Duration? = nil
    ) {
        self.request = request
        self.interval = max(interval, Self.minimumInterval)
        self.backoff = backoff
        self.isConditional = isConditional
        self.until = until
        self.maxCount = maxCount
        self.maxDuration = maxDuration
        clock = request.parts().clock
        if let maxCount, maxCount <= 0 { end = .maxCount }
    }

    /// Waits for the next tick, sends the request and returns what came back; nil once polling is over or the
    /// task is cancelled, with ``end`` saying which.
    mutating func next() async -> Tick? {
        guard end == nil else { return nil }
        if let nextDelay {
            do {
                try await clock.sleep(for: nextDelay)
            } catch {
                end = .cancelled
                return nil
            }
        } else {
            startedAt = clock.now
        }
        let tick = await send()
        if Task.isCancelled {
            end = .cancelled
            return nil
        }
        count += 1
        failures = tick.result.error == nil ? 0 : failures + 1
        let delay = backoff.delay(afterFailures: failures, interval: interval)
        nextDelay = delay
        if let until, let response = tick.result.response, until(response) {
            end = .conditionMet
        } else if let maxCount, count >= maxCount {
            end = .maxCount
        } else if let maxDuration, let startedAt, clock.now + delay - startedAt > maxDuration {
            end = .maxDuration
        }
        return tick
    }

    /// Sends one request, conditional when the last response carried validators.
    private mutating func send() async -> Tick {
        let entityTag = isConditional ? self.entityTag : nil
        let lastModified = isConditional ? self.lastModified : nil
        let isConditionalRequest = entityTag != nil || lastModified != nil
        let tickRequest = request.adding {
            if let entityTag { Header.Any(key: "If-None-Match", value: entityTag) }
            if let lastModified { Header.Any(key: "If-Modified-Since", value: lastModified) }
        }
        let parts = tickRequest.parts()
        let response: Response
        do throws(RequestError) {
            response = try await RequestExecutor.send(parts)
        } catch {
            return Tick(result: .failed(error), sent: .failure(error))
        }
        if isConditionalRequest, response.statusCode == 304 {
            return Tick(result: .unchanged, sent: .success(response))
        }
        do throws(RequestError) {
            try await parts.validation.validate(response)
        } catch {
            let failure = request.callbacks.attachingErrorBody(to: error).describingRequest(parts)
            return Tick(result: .failed(failure), sent: .success(response))
        }
        self.entityTag = Self.validator("ETag", of: response, parts: parts, isValid: HTTPSyntax.isEntityTag)
        self.lastModified = Self.validator("Last-Modified", of: response, parts: parts) {
            HTTPSyntax.invalidValueByte(in: $0) == nil && HTTPDateFormat.date(from: $0) != nil
        }
        return Tick(result: .changed(response), sent: .success(response))
    }

    /// A validator of the response to send back in the next request, or nil when there is none or it is not
    /// valid (reported to the monitors), so one bad value from the server never breaks later requests.
    private static func validator(
        _ name: String, of response: Response, parts: RequestParts, isValid: (String) -> Bool
    ) -> String? {
        guard let value = response.headers[name] else { return nil }
        if isValid(value) { return value }
        let monitors = parts[option: EventMonitorsKey.self]
        for monitor in monitors where monitor.monitoredEvents.contains(.serverValueDropped) {
            monitor.serverValueDropped(name, value: value, from: response.url)
        }
        return nil
    }
}

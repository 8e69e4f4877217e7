import Foundation
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitPipeline

/// The events of a `text/event-stream` response, reconnecting as the HTML standard's `EventSource` does.
///
/// Each connection sends `Accept: text/event-stream` and, once an `id` has been seen, `Last-Event-ID`. When the
/// connection closes or fails, the stream waits the server's `retry` delay (or
/// ``EventSourceConfiguration/defaultRetry``), never less than ``EventSourceConfiguration/minimumRetry``, and
/// reconnects, up to ``EventSourceConfiguration/maxReconnectAttempts`` times in a row without an event. While
/// connections keep ending quickly the wait grows by ``EventSourceConfiguration/backoff``, so a server that closes
/// every connection at once (with `retry: 0`, say) is not flooded with reconnections. A `204 No Content` ends the sequence; any other status than 200, or a
/// `Content-Type` other than `text/event-stream`, throws without reconnecting.
///
/// Events are read only as the consumer asks for them, so a slow consumer applies backpressure. Cancelling the
/// consuming task closes the connection.
///
/// ```swift
/// for try await event in Request { Url("http://127.0.0.1:8080/sse?count=3") }.events() {
///     print(event.id ?? "", event.data)
/// }
/// ```
public struct ServerSentEventStream: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent

    let parts: RequestParts
    let configuration: EventSourceConfiguration

    public func makeAsyncIterator() -> Iterator {
        Iterator(parts: parts, configuration: configuration)
    }

    /// Reads events, connecting and reconnecting as needed.
    ///
    /// ```swift
    /// var iterator = request.events().makeAsyncIterator()
    /// let first = try await iterator.next()
    /// ```
    public struct Iterator: AsyncIteratorProtocol {
        private let parts: RequestParts
        private let configuration: EventSourceConfiguration
        private var body: ResponseBodyStream.Iterator?
        private var parser: ServerSentEventParser
        private var pending: [ServerSentEvent] = []
        private var isFinished = false
        private var hasConnected = false
        private var reconnectsWithoutEvent = 0
        private var quickEnds = 0
        private var connectedAt: Duration?
        private var lastFailure: RequestError?

        private var head: Response?

        init(parts: RequestParts, configuration: EventSourceConfiguration) {
            self.parts = parts
            self.configuration = configuration
            self.parser = ServerSentEventParser(maxEventBytes: parts[option: ResponseLimitsKey.self].maxLineBytes)
        }

        /// The next event, or nil when the stream has ended for good.
        ///
        /// - Throws: ``RequestError``: a status other than 200 or 204, a wrong content type, cancellation, or the
        ///   last failure once reconnection attempts run out.
        public mutating func next() async throws -> ServerSentEvent? {
            while true {
                if !pending.isEmpty { return pending.removeFirst() }
                if isFinished { return nil }
                guard var current = body else {
                    try await connect()
                    continue
                }
                let chunk: Data?
                do {
                    chunk = try await current.next()
                } catch {
                    let failure = RequestError.wrapping(error)
                    if failure.isCancelled || Task.isCancelled {
                        isFinished = true
                        throw failure
                    }
                    connectionEnded(failure)
                    continue
                }
                guard let chunk else {
                    connectionEnded(nil)
                    continue
                }
                body = current
                do {
                    pending = try parser.parse(chunk)
                } catch {
                    // Reconnecting would meet the same event: the stream ends here, and its connection closes.
                    isFinished = true
                    current.terminate()
                    body = nil
                    throw RequestError(kind: error.kind, response: head, detail: error.detail).describingRequest(parts)
                }
                if !pending.isEmpty { reconnectsWithoutEvent = 0 }
                reportIgnoredEventIDs()
            }
        }

        /// Tells the monitors about event IDs the parser ignored because they could not be sent back.
        private mutating func reportIgnoredEventIDs() {
            guard !parser.ignoredEventIDs.isEmpty else { return }
            let url = try? parts.resolvedURL()
            for value in parser.ignoredEventIDs {
                for monitor in parts[option: EventMonitorsKey.self]
                where monitor.monitoredEvents.contains(.serverValueDropped) {
                    monitor.serverValueDropped("event id", value: value, from: url)
                }
            }
            parser.ignoredEventIDs = []
        }

        private mutating func connectionEnded(_ failure: RequestError?) {
            body = nil
            lastFailure = failure
            let lasted = connectedAt.map { parts.clock.now - $0 }
            quickEnds = lasted.map { $0 >= configuration.stableConnection } == true ? 0 : quickEnds + 1
            connectedAt = nil
        }

        /// Opens a connection, after the retry delay when this is a reconnection.
        private mutating func connect() async throws {
            if hasConnected {
                guard reconnectsWithoutEvent < configuration.maxReconnectAttempts else {
                    isFinished = true
                    if let lastFailure { throw lastFailure }
                    return
                }
                reconnectsWithoutEvent += 1
                let delay = configuration.reconnectionDelay(
                    retry: parser.reconnectionTime.map { Duration.milliseconds($0) }, quickEnds: Swift.max(1, quickEnds)
                )
                do {
                    try await parts.clock.sleep(for: delay)
                } catch {
                    isFinished = true
                    throw RequestError.cancelled(underlyingError: error)
                }
            }
            hasConnected = true
            var parts = self.parts
            parts.headers.set("Accept", MediaType.eventStream.description)
            if let id = parser.lastEventID, !id.isEmpty {
                parts.headers.set("Last-Event-ID", id)
            }
            let streaming: StreamingResponse
            do {
                streaming = try await RequestExecutor.stream(parts)
            } catch {
                if error.kind == .transport || error.kind == .timedOut {
                    connectionEnded(error)
                    return
                }
                isFinished = true
                throw error
            }
            try await check(streaming)
            parser = ServerSentEventParser(
                lastEventID: parser.lastEventID, reconnectionTime: parser.reconnectionTime,
                maxEventBytes: parser.maxEventBytes)
            head = streaming.head
            body = streaming.body.makeAsyncIterator()
            connectedAt = parts.clock.now
        }

        /// Ends the stream on 204, and fails it on another status or content type than an event stream's.
        private mutating func check(_ streaming: StreamingResponse) async throws(RequestError) {
            if streaming.head.statusCode == 204 {
                isFinished = true
                return
            }
            var response = streaming.head
            guard response.statusCode == 200 else {
                isFinished = true
                response.body = (try? await streaming.collect(upTo: 64 * 1024)) ?? Data()
                throw RequestError.unacceptableStatus(response).describingRequest(parts)
            }
            guard response.contentType?.essence == MediaType.eventStream.essence else {
                isFinished = true
                let type = response.headers["Content-Type"] ?? "none"
                throw RequestError.validationFailed(
                    response, reason: "the Content-Type is \(type), not text/event-stream"
                ).describingRequest(parts)
            }
        }
    }
}

extension RequestRepresentable {
    /// The response as Server-Sent Events, reconnecting after dropped connections; see ``ServerSentEventStream``.
    ///
    /// ```swift
    /// for try await event in Request { Url("http://127.0.0.1:8080/sse?count=3") }.events() {
    ///     print(event.data)  // "message 1", "message 2", "message 3"
    /// }
    /// ```
    /// - Parameter configuration: Reconnection limits and the default retry delay.
    /// - Returns: The events, read lazily as the sequence is iterated.
    public func events(_ configuration: EventSourceConfiguration = EventSourceConfiguration()) -> ServerSentEventStream
    {
        ServerSentEventStream(parts: request.parts(), configuration: configuration)
    }
}

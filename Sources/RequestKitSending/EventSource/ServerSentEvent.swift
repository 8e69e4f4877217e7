/// One event of a `text/event-stream`, as the HTML standard's event stream parser dispatches it.
///
/// ```swift
/// for try await event in request.events() {
///     print(event.event, event.data, event.id ?? "-")
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable, CustomStringConvertible {
    /// The last event ID in effect when the event was dispatched (it persists across events), if any.
    public var id: String?
    /// The event type: the `event` field, or `"message"` when none was given.
    public var event: String
    /// The `data` lines, joined with `"\n"`.
    public var data: String
    /// The reconnection delay in milliseconds set by a `retry` field in this event's block, if any.
    public var retry: Int?

    /// Creates an event.
    ///
    /// ```swift
    /// let event = ServerSentEvent(id: "7", event: "update", data: "{\"n\":7}")
    /// ```
    public init(id: String? = nil, event: String = "message", data: String, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }

    public var description: String {
        "\(event)\(id.map { " #\($0)" } ?? ""): \(data)"
    }
}

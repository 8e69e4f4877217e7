import Foundation
import RequestKitModel

/// An incremental parser for `text/event-stream` bytes, following the HTML standard's rules.
///
/// Lines end with CRLF, LF or CR (also when split across chunks); a leading byte order mark is dropped; lines
/// starting with `:` are comments; a field's value loses one leading space; `data` lines are joined with `"\n"`;
/// an `id` containing NUL, or any other control character but tab (which could not be sent back in a
/// `Last-Event-ID` header), is ignored and the last event ID persists across events; `retry` counts only when it
/// is all ASCII digits; a blank line dispatches the event, unless it has no data; an unfinished event at the end
/// of the stream is discarded.
///
/// An unfinished event may hold at most ``maxEventBytes``: its data so far and the line being read (8 MiB by
/// default; ``ResponseLimits/maxLineBytes`` for the streams of ``RequestRepresentable/events(_:)``). Past that,
/// ``parse(_:)`` throws, whichever way the stream is cut into chunks.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// let events = try parser.parse(Data("data: hello\n\n".utf8))  // [message: hello]
/// ```
public struct ServerSentEventParser: Sendable {
    private var line: [UInt8] = []
    private var afterCarriageReturn = false
    private var isAtStreamStart = true
    private var data = ""
    private var hasData = false
    private var eventType = ""
    private var lastEventIDBuffer: String?
    private var blockRetry: Int?
    /// How long the line being read may grow: ``maxEventBytes`` less the data the event already holds.
    private var lineBudget: Int

    /// The most bytes an unfinished event may hold: its data so far and the line being read.
    public let maxEventBytes: Int

    /// The last event ID: the most recent `id` field seen, which reconnections send as `Last-Event-ID`.
    public private(set) var lastEventID: String?
    /// The `id` values ignored since the stream last took them, to report to monitors.
    var ignoredEventIDs: [String] = []
    /// The reconnection time in milliseconds from the most recent valid `retry` field, if any.
    public private(set) var reconnectionTime: Int?

    /// Creates a parser, optionally carrying the last event ID of a previous connection.
    ///
    /// ```swift
    /// var parser = ServerSentEventParser(lastEventID: "41", maxEventBytes: 1 << 20)
    /// ```
    /// - Parameters:
    ///   - lastEventID: The last event ID of a previous connection.
    ///   - maxEventBytes: The most bytes an unfinished event may hold; 8 MiB by default.
    public init(lastEventID: String? = nil, maxEventBytes: Int = ResponseLimits.defaultMaxLineBytes) {
        self.lastEventID = lastEventID
        self.lastEventIDBuffer = lastEventID
        self.maxEventBytes = max(0, maxEventBytes)
        self.lineBudget = self.maxEventBytes
    }

    /// A parser for a new connection that keeps the previous connection's last event ID and retry time.
    init(lastEventID: String?, reconnectionTime: Int?, maxEventBytes: Int) {
        self.init(lastEventID: lastEventID, maxEventBytes: maxEventBytes)
        self.reconnectionTime = reconnectionTime
    }

    /// Parses the next bytes of the stream and returns the events they complete.
    ///
    /// ```swift
    /// let events = try parser.parse(chunk)
    /// ```
    /// - Parameter bytes: The next bytes, split anywhere.
    /// - Returns: The events dispatched, in order.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/responseTooLarge`` when an unfinished event would hold
    ///   more than ``maxEventBytes``; the parser should not be used again.
    public mutating func parse(_ bytes: Data) throws(RequestError) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if afterCarriageReturn {
                afterCarriageReturn = false
                if byte == 10 { continue }
            }
            switch byte {
            case 10, 13:
                afterCarriageReturn = byte == 13
                if let event = processLine() { events.append(event) }
                line.removeAll(keepingCapacity: true)
                lineBudget = maxEventBytes - data.utf8.count - (hasData ? 1 : 0)
            default:
                guard line.count < lineBudget else { throw RequestError.eventTooLarge(limit: maxEventBytes) }
                line.append(byte)
            }
        }
        return events
    }

    private mutating func processLine() -> ServerSentEvent? {
        var bytes = line[...]
        if isAtStreamStart {
            isAtStreamStart = false
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        }
        if bytes.isEmpty { return dispatch() }
        if bytes.first == UInt8(ascii: ":") { return nil }
        let field: String
        let value: Substring
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            field = String(decoding: bytes[..<colon], as: UTF8.self)
            var valueBytes = bytes[(colon + 1)...]
            if valueBytes.first == UInt8(ascii: " ") { valueBytes = valueBytes.dropFirst() }
            value = Substring(String(decoding: valueBytes, as: UTF8.self))
        } else {
            field = String(decoding: bytes, as: UTF8.self)
            value = ""
        }
        switch field {
        case "event":
            eventType = String(value)
        case "data":
            if hasData { data += "\n" }
            data += value
            hasData = true
        case "id":
            if HTTPSyntax.invalidValueByte(in: String(value)) == nil {
                lastEventIDBuffer = String(value)
            } else {
                ignoredEventIDs.append(String(value))
            }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ (48...57).contains($0) }), let milliseconds = Int(value) {
                reconnectionTime = milliseconds
                blockRetry = milliseconds
            }
        default:
            break
        }
        return nil
    }

    /// A blank line: the event, unless its data is empty; the buffers (except the last event ID) reset.
    private mutating func dispatch() -> ServerSentEvent? {
        lastEventID = lastEventIDBuffer
        defer {
            data = ""
            hasData = false
            eventType = ""
            blockRetry = nil
        }
        guard hasData else { return nil }
        let id = lastEventID.flatMap { $0.isEmpty ? nil : $0 }
        return ServerSentEvent(id: id, event: eventType.isEmpty ? "message" : eventType, data: data, retry: blockRetry)
    }
}

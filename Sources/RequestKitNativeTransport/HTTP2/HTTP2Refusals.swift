/// Whether a request the server did not process (it refused the stream, or went away below it) is sent again or
/// fails: a request goes to another connection until connections that served nothing have refused it
/// ``maxInARow`` times in a row. A refusal by a connection that served other requests (a server that goes away every
/// N requests) does not count: that server is making progress, and the request's own deadline bounds the wait.
///
/// ```swift
/// var refusals = HTTP2Refusals()
/// refusals.served()
/// refusals.decide(afterRefusals: 4)   // .sendAgain(refusalsInARow: 0): this connection served others
/// ```
struct HTTP2Refusals: Equatable, Sendable {
    /// What becomes of a refused request.
    enum Decision: Equatable, Sendable {
        /// It goes through the pool again, with this many refusals in a row counted against it.
        case sendAgain(refusalsInARow: Int)
        /// It fails: this many connections in a row refused it without serving anything.
        case fail(refusalsInARow: Int)
    }

    /// How many refusals in a row, from connections that served nothing, a request survives.
    static let maxInARow = 5

    /// Whether the server took on any stream of this connection.
    private(set) var hasServedAny = false

    /// A response head arrived on some stream of the connection.
    mutating func served() {
        hasServedAny = true
    }

    /// The server went away naming `lastStreamID` as the last stream it processed (0: none).
    mutating func wentAway(lastStreamID: Int32) {
        if lastStreamID > 0 { hasServedAny = true }
    }

    /// The decision for a request refused here that had been refused `refusals` times in a row before.
    func decide(afterRefusals refusals: Int) -> Decision {
        if hasServedAny { return .sendAgain(refusalsInARow: 0) }
        guard refusals < Self.maxInARow else { return .fail(refusalsInARow: refusals + 1) }
        return .sendAgain(refusalsInARow: refusals + 1)
    }
}

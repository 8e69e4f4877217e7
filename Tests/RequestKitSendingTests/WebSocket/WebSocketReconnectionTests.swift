import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import RequestKitWebSocket
import Testing

@testable import RequestKitSending

/// The reconnecting socket's decisions as a table on a test clock: which endings reconnect, the wait growing by the
/// backoff while connections end quickly, the count starting again after a stable connection, and the end once the
/// attempts in a row run out; then one socket end to end, whose server drops it.
@Suite("WebSocket reconnection", .wallClock)
struct WebSocketReconnectionTests {
    static let policy = WebSocket.ReconnectPolicy(
        maxAttempts: 3, delay: .seconds(1), stableConnection: .seconds(5),
        backoff: .exponential(multiplier: 2, maximum: .seconds(3), jitter: 0))
    static let lost = RequestError.webSocket(.connectionLost, "the connection was lost")

    static func refused(_ status: Int) -> RequestError {
        .webSocket(.handshakeRefused, "refused", response: Response(status: HTTPStatus(integerLiteral: status)))
    }

    /// One event of the table: the clock moves on, then the event happens.
    enum Event {
        case connected
        case ended(RequestError?)
        case failed(RequestError)
    }

    @Test("waits grow while connections end quickly, capped; a stable connection starts the count again; then the end")
    func table() async {
        let clock = TestClock()
        let rows: [(advance: Duration, event: Event, expected: WebSocketReconnection.Action?)] = [
            (.zero, .connected, nil),
            (.seconds(1), .ended(Self.lost), .reconnect(after: .seconds(1))),
            (.seconds(1), .failed(Self.refused(503)), .reconnect(after: .seconds(2))),
            (.seconds(2), .connected, nil),
            (.seconds(4), .ended(nil), .reconnect(after: .seconds(3))),
            (.seconds(3), .connected, nil),
            (.seconds(5), .ended(Self.lost), .reconnect(after: .seconds(1))),
            (.seconds(1), .failed(Self.lost), .reconnect(after: .seconds(2))),
            (.seconds(2), .failed(Self.lost), .reconnect(after: .seconds(3))),
            (.seconds(3), .failed(Self.lost), .end),
        ]
        var reconnection = WebSocketReconnection(policy: Self.policy)
        var actions: [WebSocketReconnection.Action?] = []
        for row in rows {
            await clock.advance(by: row.advance)
            let now = clock.now.offset
            switch row.event {
            case .connected:
                reconnection.connected(at: now)
                actions.append(nil)
            case .ended(let error): actions.append(reconnection.ended(error, at: now))
            case .failed(let error): actions.append(reconnection.failed(error))
            }
        }
        #expect(actions == rows.map(\.expected))
    }

    static let failures: [(RequestError, Bool)] = [
        (refused(403), false), (refused(404), false), (refused(408), true), (refused(429), true),
        (refused(500), true), (refused(503), true),
        (RequestError.webSocket(.invalidHandshake, "bad accept"), false),
        (RequestError.cancelled(underlyingError: CancellationError()), false),
        (RequestError.tlsFailed(.certificateExpired, host: "example.com", port: 443), false),
        (RequestError.timedOut("no answer"), true), (lost, true),
        (RequestError.webSocket(.closedByServer, "server error", closeCode: .internalError), true),
    ]

    @Test("failures that would repeat end at once; others reconnect", arguments: failures)
    func whichFailuresReconnect(error: RequestError, reconnects: Bool) {
        var reconnection = WebSocketReconnection(policy: Self.policy)
        #expect(reconnection.failed(error) == (reconnects ? .reconnect(after: .seconds(1)) : .end))
        #expect(Self.policy.reconnects(after: error) == reconnects)
    }

    @Test("a policy of no attempts never reconnects, and negative values count as zero")
    func noAttempts() {
        let policy = WebSocket.ReconnectPolicy(maxAttempts: -1, delay: .seconds(-2))
        #expect(policy.maxAttempts == 0)
        #expect(policy.delay == .zero)
        var reconnection = WebSocketReconnection(policy: policy)
        reconnection.connected(at: .zero)
        #expect(reconnection.ended(Self.lost, at: .seconds(60)) == .end)
    }

    @Test("the server drops the socket: it reconnects, the hook runs on the new connection, the messages go on")
    func reconnectsEndToEnd() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connections = Counter()
        server.route("/websocket/feed") { _ in
            if connections.next() == 1 {
                return .webSocket([.send(.text("one")), .disconnect], compression: false)
            }
            return .webSocket([.send(.text("two")), .echo], compression: false)
        }
        let hook = Log()
        let feed = try await WebSocket {
            Url("ws://127.0.0.1:\(server.port)/websocket/feed")
            WebSocket.Configuration(compression: nil)
            Timeout(30)
        }.connect(reconnecting: WebSocket.ReconnectPolicy(delay: .zero)) { socket, reconnections in
            hook.add("reconnected \(reconnections)")
            try await socket.send(.text("resume after one"))
        }
        var iterator = feed.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("one"))
        #expect(try await iterator.next() == .text("two"))
        #expect(try await iterator.next() == .text("resume after one"))
        #expect(hook.entries == ["reconnected 1"])
        #expect(feed.reconnections == 1)
        #expect(connections.value == 2)
        try await feed.send(.text("still here"))
        #expect(try await iterator.next() == .text("still here"))
        try await feed.close(.normalClosure, reason: "done")
        #expect(try await iterator.next() == nil)
        #expect(connections.value == 2)
    }
}

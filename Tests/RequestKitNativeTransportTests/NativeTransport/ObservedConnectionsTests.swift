import Testing

@testable import RequestKitNativeTransport

/// What the pool's observers hear of a connection, update by update: each table is how the connection stands after
/// an event (nil: closed, or still opening) and the change that must be reported, if any.
@Suite("Observed connections: what the pool's connection observers are told")
struct ObservedConnectionsTests {
    typealias Change = ObservedConnections<Int>.Change

    static let active = ObservedConnection(
        host: "127.0.0.1", port: 8080, isSecure: false, protocolVersion: "1.1", state: .active)
    static var idle: ObservedConnection {
        var connection = active
        connection.state = .idle
        return connection
    }

    @Test(
        "A connection opens once, changes state only when it changes, and closes once",
        arguments: [
            // Opening (still nil), opened carrying its request, reused, idle, idle again, closed, closed again.
            [
                (nil, nil), (active, Change(old: nil, new: active)), (active, nil),
                (idle, Change(old: active, new: idle)), (idle, nil), (active, Change(old: idle, new: active)),
                (nil, Change(old: active, new: nil)), (nil, nil),
            ],
            // A connection that fails while opening is never reported.
            [(nil, nil), (nil, nil)],
            // Closed while idle (the server hung up, the idle timeout, closeIdleConnections).
            [
                (active, Change(old: nil, new: active)), (idle, Change(old: active, new: idle)),
                (nil, Change(old: idle, new: nil)),
            ],
        ] as [[(ObservedConnection?, Change?)]])
    func table(_ steps: [(ObservedConnection?, Change?)]) {
        var observed = ObservedConnections<Int>()
        for (index, (connection, expected)) in steps.enumerated() {
            #expect(observed.update(7, to: connection) == expected, "step \(index)")
        }
        #expect(observed.count == 0)
    }

    @Test("Connections are told apart by their identifier; closing all reports each open one once")
    func closeAll() {
        var observed = ObservedConnections<Int>()
        #expect(observed.update(1, to: Self.active) == Change(old: nil, new: Self.active))
        #expect(observed.update(2, to: Self.active) == Change(old: nil, new: Self.active))
        #expect(observed.update(2, to: Self.idle) == Change(old: Self.active, new: Self.idle))
        #expect(observed.count == 2)
        let closed = observed.closeAll()
        #expect(closed.count == 2)
        #expect(closed.contains(Change(old: Self.active, new: nil)))
        #expect(closed.contains(Change(old: Self.idle, new: nil)))
        #expect(observed.count == 0)
        #expect(observed.closeAll().isEmpty)
    }
}

import RequestKit

extension TestServer {
    /// What WebSocket clients did on this server, in order: the messages they sent, how they closed, the rules
    /// they broke, across every WebSocket connection.
    ///
    /// ```swift
    /// #expect(await server.waitForWebSocketEvents(count: 2))
    /// #expect(server.webSocketEvents == [.message(.text("hello")), .closed(.normalClosure, reason: "")])
    /// ```
    public var webSocketEvents: [TestWebSocketEvent] {
        core.state.withLock { $0.webSocketEvents }
    }

    /// Waits until at least `count` WebSocket events have been recorded, or `timeout` passes.
    ///
    /// ```swift
    /// #expect(await server.waitForWebSocketEvents(count: 1))
    /// ```
    /// - Parameters:
    ///   - count: The number of events to wait for.
    ///   - timeout: The longest time to wait; two minutes by default, since a starved machine may take that long.
    /// - Returns: `true` when `count` events were recorded in time.
    public func waitForWebSocketEvents(count: Int, timeout: Duration = .seconds(120)) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if webSocketEvents.count >= count { return true }
            if clock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

extension ServerCore {
    /// Records what a WebSocket client did.
    func recordWebSocketEvent(_ event: TestWebSocketEvent) {
        state.withLock { $0.webSocketEvents.append(event) }
    }
}

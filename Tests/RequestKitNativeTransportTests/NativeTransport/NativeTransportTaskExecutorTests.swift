import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitTesting
import RequestKitWebSocket
import Testing

@testable import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
import RequestKitTestSupport
#endif

/// Code run with ``NativeTransport/taskExecutor`` preferred continues on the transport's event loop when its
/// response arrives: requests, streamed bodies and WebSocket messages behave exactly as off the loop, and every step
/// after an `await` runs on the loop's thread.
@Suite("NativeTransport: tasks that run on its loop", .wallClock)
struct NativeTransportTaskExecutorTests {
    @Test("Sequential requests of a task that prefers the executor: exact bodies, resumed on the loop, one connection")
    func sequentialRequests() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport()
        let executor = try #require(transport.taskExecutor)
        let loop = try #require(executor as? EventLoop)
        let outcomes = try await withTaskExecutorPreference(executor) {
            var outcomes: [(status: Int, isExact: Bool, onLoop: Bool)] = []
            for index in 0..<20 {
                let response = try await transport.send(
                    URLRequest(url: server.url("/bytes/\(1_000 + index)?seed=\(index)")))
                let expected = TestPayload.randomBytes(count: 1_000 + index, seed: UInt64(index))
                outcomes.append((response.statusCode, response.body == expected, loop.isCurrent))
            }
            return outcomes
        }
        #expect(outcomes.map(\.status) == Array(repeating: 200, count: 20))
        #expect(outcomes.allSatisfy { $0.isExact })
        #expect(outcomes.allSatisfy { $0.onLoop })
        #expect(server.stats.totalConnections == 1)

        // Without the preference the same task resumes off the loop.
        _ = try await transport.send(URLRequest(url: server.url("/get")))
        #expect(!loop.isCurrent)
    }

    @Test("Eight concurrent tasks on the loop, five requests each: every body exact")
    func concurrentRequests() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport { $0.maxConnectionsPerHost = 4 }
        let executor = try #require(transport.taskExecutor)
        let exact = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask(executorPreference: executor) {
                    var exact = 0
                    for index in 0..<5 {
                        let seed = UInt64(task * 10 + index)
                        let response = try await transport.send(
                            URLRequest(url: server.url("/bytes/\(500 + task * 10 + index)?seed=\(seed)")))
                        if response.body == TestPayload.randomBytes(count: 500 + task * 10 + index, seed: seed) {
                            exact += 1
                        }
                    }
                    return exact
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(exact == 40)
        #expect(server.stats.totalConnections <= 4)
    }

    @Test("A streamed body read on the loop arrives whole, at the consumer's pace")
    func streamedBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport()
        let executor = try #require(transport.taskExecutor)
        let loop = try #require(executor as? EventLoop)
        let (body, onLoop) = try await withTaskExecutorPreference(executor) {
            let streaming = try await transport.stream(
                TransferRequest(URLRequest(url: server.url("/bytes/300000?seed=7"))))
            var body = Data()
            for try await chunk in streaming.body { body.append(chunk) }
            return (body, loop.isCurrent)
        }
        #expect(body == TestPayload.randomBytes(count: 300_000, seed: 7))
        #expect(onLoop)
    }

    @Test("WebSocket messages awaited on the loop: echoes in order, then the closing handshake")
    func webSocketOnTheLoop() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport()
        let executor = try #require(transport.taskExecutor)
        let loop = try #require(executor as? EventLoop)
        let (echoes, onLoop) = try await withTaskExecutorPreference(executor) {
            let socket = try await WebSocket {
                Url("ws://127.0.0.1:\(server.port)/websocket/echo")
                WebSocket.Configuration(compression: nil)
                Using(transport)
            }.connect()
            var iterator = socket.messages.makeAsyncIterator()
            var echoes: [WebSocketMessage] = []
            var onLoop = true
            for index in 0..<20 {
                try await socket.send(.text("message \(index)"))
                if let echo = try await iterator.next() { echoes.append(echo) }
                onLoop = onLoop && loop.isCurrent
            }
            try await socket.close(.normalClosure, reason: "done")
            return (echoes, onLoop)
        }
        #expect(echoes == (0..<20).map { .text("message \($0)") })
        #expect(onLoop)
        #expect(await server.waitForWebSocketEvents(count: 21))
        #expect(server.webSocketEvents.last == .closed(.normalClosure, reason: "done"))
    }
}

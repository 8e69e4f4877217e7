#if ServiceLifecycle
import Dispatch
import Foundation
import RequestKit
import RequestKitTesting
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing

@testable import RequestKitServiceLifecycle

// `RequestKit.Client`: with the OpenAPI trait on, this module also has the generated `Client` (OpenAPI/Generated).
@Suite("Client service (swift-service-lifecycle)")
struct ClientServiceTests {
    /// A server whose `/held` answers "done" once `release` is signalled (or after 30 s, "gave up").
    private func heldServer(_ release: DispatchSemaphore) throws -> TestServer {
        let server = try TestServer()
        server.route("/held") { _ in
            release.wait(timeout: .now() + 30) == .success ? .text("done") : .text("gave up")
        }
        return server
    }

    @Test("A graceful shutdown refuses new calls with shuttingDown and lets the call in flight finish")
    func gracefulShutdownDrains() async throws {
        let release = DispatchSemaphore(value: 0)
        let server = try heldServer(release)
        defer { server.stop() }
        let service = ClientService(client: RequestKit.Client(baseURL: server.url("/")), shutdownDeadline: .seconds(60))
        try await testGracefulShutdown { trigger in
            let running = Task { try await service.run() }
            let held = Task {
                try await service.perform { client in try await client.string(Request { Path("held") }) }
            }
            #expect(await server.waitForRequests(count: 1, timeout: .seconds(60)))
            #expect(!service.isShuttingDown)
            trigger.triggerGracefulShutdown()
            while !service.isShuttingDown { await Task.yield() }
            let refused = try await #require(throws: RequestError.self) {
                try await service.perform { client in try await client.string(Request { Path("held") }) }
            }
            #expect(refused.kind == .shuttingDown)
            release.signal()
            #expect(try await held.value == "done")
            try await running.value
            #expect(server.requests.count == 1)
        }
    }

    @Test("A call still in flight at the shutdown deadline is cancelled, and run returns")
    func deadlineCancels() async throws {
        let release = DispatchSemaphore(value: 0)
        let server = try heldServer(release)
        defer {
            release.signal()
            server.stop()
        }
        let service = ClientService(
            client: RequestKit.Client(baseURL: server.url("/")), shutdownDeadline: .milliseconds(100))
        try await testGracefulShutdown { trigger in
            let running = Task { try await service.run() }
            let held = Task {
                try await service.perform { client in try await client.string(Request { Path("held") }) }
            }
            #expect(await server.waitForRequests(count: 1, timeout: .seconds(60)))
            trigger.triggerGracefulShutdown()
            try await running.value
            let error = try await #require(throws: RequestError.self) { try await held.value }
            #expect(error.kind == .cancelled)
        }
    }

    @Test("Cancelling the service's task cancels the calls in flight at once")
    func cancellationCancelsCalls() async throws {
        let release = DispatchSemaphore(value: 0)
        let server = try heldServer(release)
        defer {
            release.signal()
            server.stop()
        }
        let service = ClientService(client: RequestKit.Client(baseURL: server.url("/")), shutdownDeadline: .seconds(60))
        let running = Task { try await service.run() }
        let held = Task { try await service.perform { client in try await client.string(Request { Path("held") }) } }
        #expect(await server.waitForRequests(count: 1, timeout: .seconds(60)))
        running.cancel()
        try await running.value
        let error = try await #require(throws: RequestError.self) { try await held.value }
        #expect(error.kind == .cancelled)
        #expect(service.isShuttingDown)
    }

    @Test("The call registry: calls begin, end, are refused once closed, and drain; a late attachment is cancelled")
    func callRegistry() async {
        var registry = CallRegistry()
        let first = registry.begin()
        let second = registry.begin()
        #expect(first == 1)
        #expect(second == 2)
        #expect(registry.attach(1) {})
        #expect(registry.count == 2)
        #expect(registry.end(1) == nil)
        let drained = registry.close()
        #expect(registry.isClosed)
        #expect(registry.begin() == nil)
        #expect(registry.cancelAll().isEmpty)  // call 2 has nothing attached yet
        #expect(!registry.attach(2) {})  // attached after the cancellation: the caller cancels it
        #expect(registry.end(2) === drained)
        #expect(registry.count == 0)
        var empty = CallRegistry()
        let signal = empty.close()
        await signal.wait()  // already fired: no call was in flight
    }
}
#endif

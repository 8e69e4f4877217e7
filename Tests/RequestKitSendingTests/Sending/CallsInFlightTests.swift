import Foundation
import RequestKitComposition
import RequestKitDSL
import RequestKitModel
import RequestKitSending
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Calls in flight: what a script waits for, and what the process names if it exits first", .wallClock)
struct CallsInFlightTests {
    @Test("A call is in flight, named by its method and redacted URL, until its handlers have run")
    func callInFlight() async throws {
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let mock = MockTransport { _ in
            for await _ in gate {}
            return Response(status: .ok, body: Data("done".utf8))
        }
        let path = "/in-flight-\(UUID().uuidString)"
        let label = "POST http://api.test\(path)?token=<redacted>"
        let log = Log()
        let handle = Request {
            Url("http://api.test\(path)?token=SECRET"); Method(.post); Using(mock)
        }
        .onString { log.add($0) }
        .call()

        #expect(InFlightCalls.shared.inFlight.contains(label))
        #expect(!InFlightCalls.shared.inFlight.joined().contains("SECRET"))
        open.finish()
        await handle.wait()
        #expect(log.entries == ["done"])
        #expect(!InFlightCalls.shared.inFlight.contains(label))
    }

    @Test("Groups, chains and update loops are in flight too, each named by what it sends")
    func compositionsInFlight() async throws {
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let mock = MockTransport { _ in
            for await _ in gate {}
            return Response(status: .ok)
        }
        let id = UUID().uuidString
        let group = RequestGroup {
            Request {
                Url("http://api.test/\(id)/a"); Using(mock)
            }
            Request {
                Url("http://api.test/\(id)/b"); Using(mock)
            }
        }
        .call()
        let chain = RequestChain {
            Step(
                "login-\(id)",
                Request {
                    Url("http://api.test/\(id)/login"); Using(mock)
                })
        }
        .call { _, _ in }
        let updates = Request {
            Url("http://api.test/\(id)/feed"); Using(mock)
        }.update(every: 60)

        let inFlight = InFlightCalls.shared.inFlight
        #expect(
            inFlight.contains("RequestGroup of 2 requests (GET http://api.test/\(id)/a, GET http://api.test/\(id)/b)"))
        #expect(inFlight.contains("RequestChain of steps \"login-\(id)\""))
        #expect(inFlight.contains("updates of GET http://api.test/\(id)/feed"))
        updates.cancel()
        open.finish()
        await group.wait()
        await chain.wait()
        await updates.wait()
        #expect(InFlightCalls.shared.inFlight.filter { $0.contains(id) }.isEmpty)
    }

    @Test("Waiting for every call returns only once the last one has ended")
    func waitingForEveryCall() async {
        let calls = InFlightCalls()
        let first = calls.begin { "GET http://api.test/1" }
        let second = calls.begin { "GET http://api.test/2" }
        let waiter = Task { () -> Int in
            await calls.waitUntilNoneInFlight()
            return calls.count
        }
        while calls.waiterCount == 0 { await Task.yield() }
        calls.end(first)
        #expect(calls.waiterCount == 1)
        #expect(calls.inFlight == ["GET http://api.test/2"])
        calls.end(second)
        #expect(await waiter.value == 0)
        #expect(calls.waiterCount == 0)
    }

    @Test("Waiting with nothing in flight returns at once; a cancelled waiter stops waiting")
    func waitingWithNothingOrCancelled() async {
        let calls = InFlightCalls()
        await calls.waitUntilNoneInFlight()
        _ = calls.begin { "GET http://api.test/never" }
        let waiter = Task { await calls.waitUntilNoneInFlight() }
        while calls.waiterCount == 0 { await Task.yield() }
        waiter.cancel()
        await waiter.value
        #expect(calls.waiterCount == 0)
        #expect(calls.count == 1)
    }

    @Test("At exit, one line names the calls still in flight; nothing is written when none is")
    func exitReport() throws {
        #expect(InFlightCalls.exitReport(naming: []) == nil)
        #expect(
            InFlightCalls.exitReport(naming: ["GET http://api.test/todos?token=<redacted>"])
                == "RequestKit: the process exited with 1 call in flight, whose handlers never ran: "
                + "GET http://api.test/todos?token=<redacted>. "
                + "Wait for them with `await handle.wait()` or `await RequestHandle.waitForAll()`.\n")
        let many = (1...12).map { "GET http://api.test/\($0)" }
        let line = try #require(InFlightCalls.exitReport(naming: many))
        #expect(line.hasPrefix("RequestKit: the process exited with 12 calls in flight"))
        #expect(line.contains("GET http://api.test/10 and 2 more."))
        #expect(!line.contains("api.test/11"))
        #expect(line.filter { $0 == "\n" }.count == 1 && line.hasSuffix("\n"))
    }

    #if os(Linux)
    @Test("A process that exits with a call in flight writes one line naming it on standard error")
    func exitWithCallInFlight() async throws {
        let binary = try #require(ProcessInfo.processInfo.arguments.first { $0.hasSuffix(".xctest") })
        let run = try await ChildProcess.run(
            binary, ["--testing-library", "swift-testing", "--filter", "CallsInFlightTests/exitProbe"],
            environment: ProcessInfo.processInfo.environment.merging([Self.probeVariable: "1"]) { $1 })

        #expect(run.termination == .exited(0))
        let written = String(decoding: run.errors, as: UTF8.self)
        let reports = written.split(separator: "\n").filter { $0.hasPrefix("RequestKit:") }
        #expect(
            reports == [
                "RequestKit: the process exited with 1 call in flight, whose handlers never ran: "
                    + "GET http://api.test/never-answered?token=<redacted>. "
                    + "Wait for them with `await handle.wait()` or `await RequestHandle.waitForAll()`."
            ])
    }
    #endif

    static let probeVariable = "REQUESTKIT_EXIT_REPORT_PROBE"

    @Test(
        "(run in a child process) starts a call that never ends, and returns",
        .enabled(if: ProcessInfo.processInfo.environment[probeVariable] != nil))
    func exitProbe() {
        let never = MockTransport { _ in
            let silence = AsyncStream<Void> { _ in }
            for await _ in silence {}
            return Response(status: .ok)
        }
        Request {
            Url("http://api.test/never-answered?token=SECRET"); Using(never)
        }.call()
        #expect(InFlightCalls.shared.inFlight.contains("GET http://api.test/never-answered?token=<redacted>"))
    }
}

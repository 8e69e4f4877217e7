import Foundation
import Testing

@testable import RequestKitModel
@testable import RequestKitNativeTransport

#if canImport(CNghttp2)
import RequestKitTestSupport
#endif

/// A task that runs on its connection's loop (the transport's loop its executor, ``NativeTransport/taskExecutor``)
/// starts its request where it is, and the loop runs what a response hands over before it waits again: no wake-up
/// on the way. Turns and wake-ups are counted on a loop the test turns
/// by hand, which stands for the loop's thread; nothing is timed.
@Suite("Tasks that run on the loop")
struct LoopTaskScriptedTests {
    /// Records, in order, what ran on the loop.
    final class Log: @unchecked Sendable {
        // Safe: only the test's thread, which turns the loop, touches it.
        var entries: [String] = []
    }

    /// A handler that hands the loop work when its descriptor is ready, and that work hands over more.
    final class HandingHandler: EventLoopHandler {
        let loop: EventLoop
        let log: Log
        let stream: ScriptedByteStream

        init(loop: EventLoop, log: Log, stream: ScriptedByteStream) {
            self.loop = loop
            self.log = log
            self.stream = stream
        }

        func descriptorIsReady(_ descriptor: Int32, readable: Bool, writable: Bool) {
            var byte: UInt8 = 0
            _ = try? withUnsafeMutableBytes(of: &byte) { try stream.read(into: $0) }
            log.entries.append("ready")
            loop.execute { [self] in
                log.entries.append("handed over")
                loop.execute { [self] in log.entries.append("handed over by handed-over work") }
            }
        }
    }

    @Test("Work a handler hands over runs in the same turn; work that work hands over waits for the next turn")
    func handedOverWorkRunsBeforeTheNextWait() throws {
        let time = ManualLoopTime()
        let readiness = ManualReadiness()
        let loop = EventLoop(readiness: readiness, clock: .manual(time))
        let log = Log()
        let stream = ScriptedByteStream()
        readiness.add(stream)
        let handler = HandingHandler(loop: loop, log: log, stream: stream)
        try loop.register(stream.descriptor, interest: .readable, handler: handler)
        stream.deliver("x")

        loop.turn()
        #expect(log.entries == ["ready", "handed over"])
        loop.turn()
        #expect(log.entries == ["ready", "handed over", "handed over by handed-over work"])
        #expect(!loop.turn())
        #expect(readiness.wakeCount == 0)
    }

    @Test("HTTP/1.1: a request its task submits on the loop is written, answered and finished in that one turn")
    func http1RequestFromTheLoop() throws {
        let harness = LoopHarness(reportsWaiting: true)
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream)]
        stream.answer("GET /1 ", with: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none")
        let first = harness.submit("/1")
        harness.settle()
        #expect(first.body == "one")
        stream.answer("GET /2 ", with: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo")
        let wakes = harness.readiness.wakeCount

        var second: LoopHarness.Submitted?
        // The test hands the loop the task's step (one wake-up); the step writes the request itself, and the
        // loop reads the answer in the same turn (handed to the loop instead, it would be written after the turn's
        // look at readiness, and read in the next).
        harness.loop.execute { second = harness.submit("/2", inline: true) }
        harness.loop.turn()
        #expect(second?.body == "two")
        #expect(second?.status == 200)
        #expect(stream.written.components(separatedBy: "GET /2 ").count == 2)
        #expect(harness.readiness.wakeCount == wakes + 1)
        #expect(harness.dialer.attemptCount == 1)
    }

    #if canImport(CNghttp2)
    @Test("HTTP/2: a request its task submits on the loop, beside one in flight, is written at once, with no wake-up")
    func http2RequestFromTheLoop() throws {
        let (harness, _, server, connection) = HTTP2InlineScriptedTests.connected { id, request, peer in
            let path = request.fields.first { $0.name == ":path" }?.value
            if path != "/held" { peer.respond(id, status: 200, body: Data("hi".utf8)) }
        }
        let held = harness.submit("/held", port: 8081)
        harness.settle()
        #expect(server.paths == ["/1", "/held"])
        let wakes = harness.readiness.wakeCount

        var next: LoopHarness.Submitted?
        harness.loop.execute { next = harness.submit("/2", port: 8081, inline: true) }
        harness.loop.turn()
        #expect(server.paths == ["/1", "/held", "/2"])
        harness.loop.turn()
        #expect(next?.body == "hi")
        #expect(!held.isFinished)
        // The test's hand-off of the task's step woke the loop; nothing else did.
        #expect(harness.readiness.wakeCount == wakes + 1)
        // Started by the loop's own step, not lent to a task: the connection counts no request written inline.
        #expect(try #require(connection).inlineRequests.load() == 0)
    }
    #endif
}

#if canImport(CNghttp2)
import Foundation
import RequestKitTestSupport
import Testing

@testable import RequestKitHTTP2
@testable import RequestKitModel
@testable import RequestKitNativeTransport

/// A request on an HTTP/2 connection with no stream open, submitted by its awaiting task while the loop waits: the
/// task writes it, and the loop, which nothing else wakes, finishes it when the response comes. Wake-ups, writes and
/// turns are counted on a loop the test turns by hand; nothing is timed.
@Suite("HTTP/2 requests written by their task")
struct HTTP2InlineScriptedTests {
    /// A pool that speaks h2c to 127.0.0.1:8081 on a loop that says it waits between turns, as an idle loop on a
    /// thread does, with one connection open and its first request answered.
    static func connected(
        answering handler: @escaping (Int32, HTTP2ServerPeer.Received, HTTP2ServerPeer) -> Void = { id, _, peer in
            peer.respond(id, status: 200, body: Data("hi".utf8))
        }
    ) -> (LoopHarness, ScriptedByteStream, InMemoryHTTP2Server, HTTP2Connection?) {
        let harness = LoopHarness(http2: .priorKnowledge(for: ["127.0.0.1:8081"]), reportsWaiting: true)
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream)]
        let server = InMemoryHTTP2Server(handler: handler)
        server.attach(to: stream)
        let first = harness.submit("/1", port: 8081)
        harness.settle()
        #expect(first.body == "hi")
        return (harness, stream, server, harness.pool.http2Connections.first)
    }

    @Test("Three requests in a row: each written by its task, finished by the loop in one turn, with no wake-up")
    func loneRequestsNeedNoWakeUp() throws {
        let (harness, stream, server, connection) = Self.connected()
        let wakes = harness.readiness.wakeCount
        for index in 2...4 {
            let request = harness.submit("/\(index)", port: 8081, inline: true)
            // Written before the loop turned: the server has it, and the response waits to be read.
            #expect(server.paths.last == "/\(index)")
            #expect(!request.isFinished)
            #expect(stream.isReadable)
            harness.loop.turn()
            #expect(request.body == "hi")
            #expect(request.status == 200)
            // The attempt's metrics count its own stream's frames, as for a request the loop writes.
            let streamID = Int32(2 * index - 1)
            let record = request.job.finishedRecord
            #expect(record.bytesSent == InMemoryHTTP2Server.frameBytes(of: streamID, in: stream.writtenBytes, from: 24))
            #expect(record.bytesReceived == InMemoryHTTP2Server.frameBytes(of: streamID, in: server.sent))
            #expect(record.sendEnd >= record.sendStart)
        }
        #expect(harness.readiness.wakeCount == wakes)
        #expect(try #require(connection).inlineRequests.load() == 3)
        #expect(harness.dialer.attemptCount == 1)
    }

    @Test("A second request while the first has its stream open goes to the loop, which one wake-up brings")
    func busyConnectionGoesToTheLoop() throws {
        let (harness, _, server, connection) = Self.connected()
        let wakes = harness.readiness.wakeCount
        let second = harness.submit("/2", port: 8081, inline: true)
        let third = harness.submit("/3", port: 8081, inline: true)
        #expect(server.paths == ["/1", "/2"])
        #expect(harness.readiness.wakeCount == wakes + 1)
        harness.settle()
        #expect(server.paths == ["/1", "/2", "/3"])
        #expect([second.body, third.body] == ["hi", "hi"])
        #expect(try #require(connection).inlineRequests.load() == 1)
    }

    @Test("A request its task wrote keeps its idle timeout: the loop, woken once to arm the sooner timer, resets it")
    func inlineRequestTimesOut() {
        let (harness, _, server, _) = Self.connected { id, request, peer in
            let path = request.fields.first { $0.name == ":path" }?.value
            if path != "/silent" { peer.respond(id, status: 200, body: Data("hi".utf8)) }
        }
        let wakes = harness.readiness.wakeCount
        let silent = harness.submit("/silent", port: 8081, timeout: 5, inline: true)
        #expect(server.paths == ["/1", "/silent"])
        // The first request's timer (30 s) fires after this one's deadline: the loop arms the sooner one.
        #expect(harness.readiness.wakeCount == wakes + 1)
        harness.advance(4)
        #expect(!silent.isFinished)
        harness.advance(2)
        #expect(silent.error?.kind == .timedOut)
        // The connection goes on: the next request is answered.
        let next = harness.submit("/next", port: 8081, inline: true)
        harness.settle()
        #expect(next.body == "hi")
    }

    @Test("Readiness the loop meets while the task holds the connection waits for it, then is read in order")
    func readinessWhileLentIsDeferred() throws {
        let (harness, stream, server, connection) = Self.connected()
        // A PING the server sends before the request; the loop turns while the task is writing the request.
        stream.deliver([0, 0, 8, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8])
        let serve = try #require(stream.peer)
        var turnedWhileLent = false
        stream.peer = { bytes in
            let answer = serve(bytes)
            if !turnedWhileLent {
                turnedWhileLent = true
                harness.loop.turn()
            }
            return answer
        }
        let wakes = harness.readiness.wakeCount
        let request = harness.submit("/2", port: 8081, inline: true)
        #expect(turnedWhileLent)
        #expect(!request.isFinished)
        // The loop stopped watching the socket while it could not read it, and was woken once it could.
        #expect(harness.readiness.interest(of: stream.descriptor) == [])
        #expect(harness.readiness.wakeCount == wakes + 1)
        harness.settle()
        #expect(request.body == "hi")
        #expect(harness.readiness.interest(of: stream.descriptor) == .readable)
        // The PING was acknowledged: a PING frame with the ACK flag and the same payload.
        let ack: [UInt8] = [0, 0, 8, 6, 1, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]
        let written = stream.writtenBytes
        #expect(written.indices.dropLast(ack.count - 1).contains { Array(written[$0..<$0 + ack.count]) == ack })
        #expect(server.paths == ["/1", "/2"])
        #expect(try #require(connection).inlineRequests.load() == 1)
    }
}
#endif

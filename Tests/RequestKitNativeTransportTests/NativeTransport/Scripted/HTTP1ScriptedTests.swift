import Foundation
import Testing

@testable import RequestKitModel
@testable import RequestKitNativeTransport

/// HTTP/1.1 connections, their connectors and the pool, run on a loop the test turns by hand against scripted byte
/// streams: the faults that once needed a live server and a real clock, each made exact.
@Suite("HTTP/1.1 without sockets")
struct HTTP1ScriptedTests {
    static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    @Test("A request runs on the connection its connector opened, and the kept-alive connection carries the next")
    func keptAlive() {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream)]
        stream.answer("GET /a HTTP/1.1", with: Self.ok)
        let first = harness.submit("/a")
        harness.settle()
        #expect(first.status == 200)
        #expect(first.body == "ok")
        stream.answer("GET /b HTTP/1.1", with: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nyes")
        let second = harness.submit("/b")
        harness.settle()
        #expect(second.body == "yes")
        #expect(harness.dialer.attemptCount == 1)
        #expect(
            stream.written
                == "GET /a HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\nGET /b HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n")
    }

    @Test(
        "A kept-alive connection reset before any response byte: an idempotent request goes once more, on a fresh connection, never on the other kept-alive one"
    )
    func staleConnectionRetriedOnFreshConnection() {
        let harness = LoopHarness()
        let (first, second, fresh) = (ScriptedByteStream(), ScriptedByteStream(), ScriptedByteStream())
        harness.dialer.plans = [.connects(first), .connects(second), .connects(fresh)]
        first.answer("GET /1 ", with: Self.ok)
        second.answer("GET /2 ", with: Self.ok)
        let one = harness.submit("/1")
        let two = harness.submit("/2")
        harness.settle()
        #expect(one.status == 200 && two.status == 200)
        #expect(harness.pool.idleCount == 2)
        // The server closed both while they were idle; each finds out only when it reads after writing.
        first.reset(after: "GET /3 ")
        second.reset(after: "GET /3 ")
        fresh.answer("GET /3 ", with: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nthree")
        let three = harness.submit("/3")
        harness.settle()
        #expect(three.body == "three")
        #expect(harness.dialer.attemptCount == 3)
        // One stale connection tried, then the fresh one: the other kept-alive connection never saw the request.
        let staleTries = [first, second].filter { $0.written.contains("GET /3 ") }.count
        #expect(staleTries == 1)
    }

    @Test("A POST on a kept-alive connection reset before any response fails, saying it was not sent again")
    func staleConnectionNotRetriedForPost() throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream)]
        stream.answer("GET /1 ", with: Self.ok)
        harness.submit("/1")
        harness.settle()
        stream.reset(after: "POST /pay ")
        let pay = harness.submit("/pay", method: "POST", body: Data("amount=1".utf8))
        harness.settle()
        guard case .failed(let error, let wasReused)? = pay.outcome else {
            Issue.record("expected a failure, got \(String(describing: pay.outcome))")
            return
        }
        #expect(wasReused)
        guard case ExchangeFailure.closedBeforeResponse = error else {
            Issue.record("expected a close before the response, got \(error)")
            return
        }
        #expect(harness.dialer.attemptCount == 1)
    }

    @Test("A server that answers 413 before reading the body stops the upload; the connection is not reused")
    func earlyAnswerStopsUpload() {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let next = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream), .connects(next)]
        // The head fits; the socket then takes nothing more, as the server stopped reading.
        stream.writeCapacity = 128
        stream.answer("POST /upload ", with: "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 8\r\n\r\ntoo big!")
        let upload = harness.submit("/upload", method: "POST", body: Data(repeating: 0x61, count: 64 * 1024))
        harness.settle()
        #expect(upload.status == 413)
        #expect(upload.body == "too big!")
        #expect(stream.isClosed)
        next.answer("GET /after ", with: Self.ok)
        harness.submit("/after")
        harness.settle()
        #expect(harness.dialer.attemptCount == 2)
    }

    @Test("A 100 Continue while the body waits for room lets the writing go on, and the connection is kept")
    func continueWhileSending() {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream)]
        stream.writeCapacity = 128
        stream.answer("PUT /file ", with: "HTTP/1.1 100 Continue\r\n\r\n")
        let body = Data(repeating: 0x62, count: 32 * 1024) + Data("END".utf8)
        let put = harness.submit("/file", method: "PUT", body: body)
        harness.settle()
        #expect(!put.isFinished)
        stream.answer("END", with: "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")
        stream.writeCapacity = nil
        harness.settle()
        #expect(put.status == 201)
        #expect(stream.written.hasSuffix("END"))
        #expect(!stream.isClosed)
        #expect(harness.pool.idleCount == 1)
    }

    @Test("A body delimited by the close ends there when the close is confirmed; TLS closed without close_notify fails")
    func closeDelimitedBody() throws {
        let harness = LoopHarness()
        let (confirmed, unconfirmed) = (ScriptedByteStream(), ScriptedByteStream())
        harness.dialer.plans = [.connects(confirmed), .connects(unconfirmed)]
        confirmed.answer("GET /all ", with: "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it")
        confirmed.deliverEnd(confirmed: true)
        let whole = harness.submit("/all")
        harness.settle()
        #expect(whole.body == "all of it")
        unconfirmed.answer("GET /cut ", with: "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of")
        unconfirmed.deliverEnd(confirmed: false)
        let cut = harness.submit("/cut")
        harness.settle()
        #expect(cut.error?.underlyingError as? HTTP1ParseError == .unconfirmedEnd)
    }

    @Test("A final 101 Switching Protocols to a plain request is a typed error, never a response")
    func unaskedSwitchingProtocols() {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream)]
        stream.answer("GET /plain ", with: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n")
        let plain = harness.submit("/plain")
        harness.settle()
        #expect(plain.status == nil)
        #expect(plain.error?.underlyingError as? HTTP1ParseError == .switchedProtocols)
        #expect(stream.isClosed)
    }

    @Test("A request that gets its connection at the end of its pool wait keeps the wait in its idle window")
    func poolWaitCountsAgainstTheTimeout() {
        let harness = LoopHarness(maxConnectionsPerHost: 1)
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream)]
        let first = harness.submit("/first", timeout: 3)
        let second = harness.submit("/second", timeout: 3)
        harness.settle()
        harness.advance(2.9)
        stream.deliver(Self.ok)
        harness.settle()
        #expect(first.status == 200)
        #expect(stream.written.contains("GET /second "))
        #expect(!second.isFinished)
        // Three seconds after it was submitted, with no byte of its response: it fails, whenever it was written.
        harness.advance(0.2)
        #expect(second.error?.kind == .timedOut)
    }

    @Test("An idle connection the server closed is noticed before the request is written: it goes on a new one, unsent")
    func closedWhileIdleIsNoticedFirst() {
        let harness = LoopHarness()
        let (stream, fresh) = (ScriptedByteStream(), ScriptedByteStream())
        harness.dialer.plans = [.connects(stream), .connects(fresh)]
        stream.answer("GET /1 ", with: Self.ok)
        harness.submit("/1")
        harness.settle()
        stream.deliverEnd()
        fresh.answer("sixteen", with: "HTTP/1.1 204 No Content\r\n\r\n")
        let put = harness.submit("/put", method: "PUT", body: Data("sixteen".utf8))
        harness.settle()
        #expect(put.status == 204)
        #expect(!stream.written.contains("PUT"))
        #expect(fresh.written.hasSuffix("\r\n\r\nsixteen"))
        #expect(!put.job.hasRetried)
    }

    @Test("A connect that never finishes fails at the connect timeout, naming the address's host and port")
    func connectTimeout() {
        let harness = LoopHarness(connectTimeout: 2)
        harness.dialer.plans = [.hangs]
        let request = harness.submit("/slow", timeout: 30)
        harness.settle()
        harness.advance(1.9)
        #expect(!request.isFinished)
        harness.advance(0.2)
        #expect(request.error?.kind == .timedOut)
        #expect(request.error?.detail == "could not connect to 127.0.0.1 port 8080 within 2 s")
    }

    @Test("Cancelling a request while its connection opens ends it as cancelled and frees the host's room")
    func cancelWhileConnecting() {
        let harness = LoopHarness(maxConnectionsPerHost: 1)
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.hangs, .connects(stream)]
        let first = harness.submit("/first")
        harness.settle()
        first.job.cancel()
        harness.settle()
        #expect(first.error?.kind == .cancelled)
        stream.answer("GET /second ", with: Self.ok)
        let second = harness.submit("/second")
        harness.settle()
        #expect(second.status == 200)
        #expect(harness.dialer.closedDescriptors.count == 1)
    }
}

import Foundation
import Testing

@testable import RequestKitNativeTransport
@testable import RequestKitSockets

@Suite("HTTP/1.1 response reader: bytes in, what they come to out")
struct HTTP1ResponseReaderTests {
    /// Feeds `pieces` one read at a time (then the end of the stream when `ends`) and reads as a connection does:
    /// the events in order ("more" when the reader needs bytes), and the body collected.
    private func read(
        _ pieces: [String], ends: Bool = false, bodyLimit: Int = .max
    ) throws -> (events: [String], body: String) {
        let stream = ScriptedByteStream()
        var reader = HTTP1ResponseReader(capacity: 4096)
        var events: [String] = []
        var hasHead = false
        func advance() throws {
            while true {
                let event = hasHead ? try reader.decodeBody() : try reader.nextHead(limits: ResponseHead.Limits())
                switch event {
                case .interimHead:
                    events.append("interim")
                case .finalHead(let head):
                    events.append("head \(head.status)")
                    hasHead = true
                    try reader.expectBody(
                        of: head, framing: head.framing(isHeadRequest: false), limits: .init(), bodyLimit: bodyLimit)
                case .bodyCompleted(let end):
                    events.append(
                        "complete" + (end.wasDelimitedByClose ? " at close" : "")
                            + (end.hasExtraBytes ? " + extra" : ""))
                    return
                case .consumerFull:
                    events.append("full")
                    return
                case .needsBytes:
                    events.append("more")
                    return
                }
            }
        }
        for piece in pieces {
            stream.deliver(piece)
            _ = try reader.fill(from: stream)
            try advance()
        }
        if ends {
            stream.deliverEnd()
            #expect(try reader.fill(from: stream) == .end)
            try reader.finishAtEndOfStream(streamingTo: nil)
            try advance()
        }
        let body = reader.takeResponse().map { String(decoding: $0.body, as: UTF8.self) } ?? ""
        return (events, body)
    }

    @Test(
        "Each response's bytes come to the events the machine takes, in order",
        arguments: [
            (
                ["HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhe", "llo"],
                false, ["head 200", "more", "complete"], "hello"
            ),
            (
                ["HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"],
                false, ["interim", "head 204", "complete"], ""
            ),
            (
                ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab", "c\r\n0\r\n\r\n"],
                false, ["head 200", "more", "complete"], "abc"
            ),
            (
                ["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1"], false, ["head 200", "complete + extra"],
                "ok"
            ),
            (["HTTP/1.1 200 OK\r\n\r\nab", "c"], true, ["head 200", "more", "more", "complete at close"], "abc"),
            (
                ["HTTP/1.1 2", "00 OK\r\nContent-Le", "ngth: 0\r\n\r\n"], false,
                ["more", "more", "head 200", "complete"], ""
            ),
        ])
    func events(_ pieces: [String], _ ends: Bool, _ expected: [String], _ body: String) throws {
        let read = try read(pieces, ends: ends)
        #expect(read.events == expected)
        #expect(read.body == body)
    }

    @Test("A body announced over the limit fails before any of it is read; a chunked one fails as it passes the limit")
    func bodyLimit() throws {
        #expect {
            try read(["HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n"], bodyLimit: 10)
        } throws: { ($0 as? ResponseTooLarge)?.head.status == 200 }
        #expect {
            try read(
                ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n", "6\r\nghijkl\r\n"],
                bodyLimit: 10)
        } throws: { $0 is ResponseTooLarge }
    }

    @Test("A body read before its head fails as a truncated head")
    func bodyWithoutHead() {
        var reader = HTTP1ResponseReader(capacity: 64)
        #expect(throws: HTTP1ParseError.truncatedHead) { try reader.decodeBody() }
    }

    @Test("Handing the response over leaves nothing behind for the next one")
    func takeResponse() throws {
        let stream = ScriptedByteStream()
        var reader = HTTP1ResponseReader(capacity: 256)
        stream.deliver("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        _ = try reader.fill(from: stream)
        guard case .finalHead(let head) = try reader.nextHead(limits: ResponseHead.Limits()) else {
            Issue.record("no head")
            return
        }
        try reader.expectBody(of: head, framing: .length(2), limits: .init(), bodyLimit: 100)
        #expect(try reader.decodeBody() == .bodyCompleted(.init()))
        #expect(reader.takeResponse()?.body == Data("ok".utf8))
        #expect(reader.takeResponse() == nil)
        reader.startResponse()
        let hasUnread = reader.hasUnread
        #expect(!hasUnread)
    }

    @Test(
        "An idle connection's socket is usable when silent, and not when it has bytes or has ended",
        arguments: [
            ("", false, HTTP1ResponseReader.IdleCheck.usable),
            ("HTTP/1.1 200 OK\r\n", false, .applicationData),
            ("", true, .ended),
        ])
    func idleCheck(_ bytes: String, _ ended: Bool, _ expected: HTTP1ResponseReader.IdleCheck) {
        let stream = ScriptedByteStream()
        if !bytes.isEmpty { stream.deliver(bytes) }
        if ended { stream.deliverEnd() }
        var reader = HTTP1ResponseReader(capacity: 64)
        #expect(reader.checkIdle(stream, knownReadable: true) == expected)
    }
}

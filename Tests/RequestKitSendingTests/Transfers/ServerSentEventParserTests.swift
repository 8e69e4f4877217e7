import Foundation
import RequestKitModel
import RequestKitSending
import Testing

@Suite("Server-Sent Events parser")
struct ServerSentEventParserTests {
    private func parse(_ text: String, in pieces: Int = 1) throws -> [ServerSentEvent] {
        try parse(Data(text.utf8), in: pieces)
    }

    private func parse(_ bytes: Data, in pieces: Int = 1) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        let size = max(1, (bytes.count + pieces - 1) / pieces)
        var offset = 0
        while offset < bytes.count {
            events += try parser.parse(bytes.subdata(in: offset..<min(bytes.count, offset + size)))
            offset += size
        }
        return events
    }

    @Test("Fields, the default type and dispatch on a blank line")
    func basic() throws {
        #expect(
            try parse("event: update\ndata: one\nid: 1\n\ndata: two\n\n") == [
                ServerSentEvent(id: "1", event: "update", data: "one"),
                ServerSentEvent(id: "1", event: "message", data: "two"),
            ])
    }

    @Test("Multi-line data is joined with LF, and an empty data field counts")
    func multiLineData() throws {
        #expect(try parse("data: a\ndata:\ndata:  b\n\n") == [ServerSentEvent(data: "a\n\n b")])
        #expect(try parse("data\n\n") == [ServerSentEvent(data: "")])
    }

    @Test("Comments are ignored, and a block without data dispatches nothing")
    func comments() throws {
        #expect(try parse(": keep-alive\n\n:another\nevent: ping\n\ndata: x\n\n") == [ServerSentEvent(data: "x")])
    }

    @Test("CR, LF and CRLF line endings, split anywhere", arguments: [1, 2, 3, 7, 40])
    func lineEndings(pieces: Int) throws {
        let expected = [ServerSentEvent(data: "a"), ServerSentEvent(data: "b"), ServerSentEvent(data: "c\nd")]
        #expect(try parse("data: a\r\n\r\ndata: b\r\rdata: c\ndata: d\r\n\n", in: pieces) == expected)
    }

    @Test("A CR at the end of one chunk and an LF at the start of the next make one line ending")
    func splitCRLF() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.parse(Data("data: a\r".utf8)) == [])
        #expect(try parser.parse(Data("\n\r".utf8)) == [ServerSentEvent(data: "a")])
        #expect(try parser.parse(Data("\ndata: b\n\n".utf8)) == [ServerSentEvent(data: "b")])
    }

    @Test("A leading byte order mark is dropped, only at the start of the stream")
    func byteOrderMark() throws {
        var bytes = Data([0xEF, 0xBB, 0xBF])
        bytes.append(Data("data: a\n\n".utf8))
        #expect(try parse(bytes, in: 5) == [ServerSentEvent(data: "a")])
        var later = Data("data: a\n\n".utf8)
        later.append(contentsOf: [0xEF, 0xBB, 0xBF])
        later.append(Data("data: b\n\n".utf8))
        #expect(try parse(later) == [ServerSentEvent(data: "a")])
    }

    @Test("An id containing NUL is ignored; the last event ID persists and an empty id clears it")
    func ids() throws {
        var parser = ServerSentEventParser()
        let events = try parser.parse(Data("id: 1\ndata: a\n\nid: 2\u{0}x\ndata: b\n\ndata: c\n\nid\ndata: d\n\n".utf8))
        #expect(
            events == [
                ServerSentEvent(id: "1", data: "a"), ServerSentEvent(id: "1", data: "b"),
                ServerSentEvent(id: "1", data: "c"), ServerSentEvent(id: nil, data: "d"),
            ])
        #expect(parser.lastEventID == "")
    }

    @Test("An id in a block without data still sets the last event ID")
    func idWithoutData() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.parse(Data("id: 9\n\n".utf8)) == [])
        #expect(parser.lastEventID == "9")
    }

    @Test("retry counts only when all ASCII digits")
    func retry() throws {
        var parser = ServerSentEventParser()
        let events = try parser.parse(
            Data("retry: 1500\ndata: a\n\nretry: 2x\nretry: -1\nretry: 1.5\nretry:\ndata: b\n\n".utf8))
        #expect(events == [ServerSentEvent(data: "a", retry: 1500), ServerSentEvent(data: "b")])
        #expect(parser.reconnectionTime == 1500)
        #expect(try parser.parse(Data("retry:20\n\n".utf8)) == [])
        #expect(parser.reconnectionTime == 20)
    }

    @Test("Only one leading space is removed; unknown fields and a line without a colon are handled")
    func fieldSyntax() throws {
        #expect(
            try parse("data:no space\nfoo: bar\nevent\ndata:  two spaces\n\n")
                == [ServerSentEvent(data: "no space\n two spaces")])
    }

    @Test("An unfinished event at the end of the stream is discarded")
    func unfinished() throws {
        #expect(try parse("data: done\n\ndata: cut") == [ServerSentEvent(data: "done")])
    }

    @Test("Invalid UTF-8 is replaced, and multi-byte characters split across chunks survive")
    func utf8() throws {
        #expect(try parse("data: caf\u{e9} \u{1F600}\n\n", in: 13) == [ServerSentEvent(data: "caf\u{e9} \u{1F600}")])
        var bytes = Data("data: a".utf8)
        bytes.append(0xFF)
        bytes.append(Data("\n\n".utf8))
        #expect(try parse(bytes) == [ServerSentEvent(data: "a\u{FFFD}")])
    }

    @Test(
        "An event may hold maxEventBytes, its data and the line being read; one byte more throws, however it is cut",
        arguments: [1, 3, 7])
    func eventLimit(pieces: Int) throws {
        func parse(_ text: String) throws(RequestError) -> [ServerSentEvent] {
            var parser = ServerSentEventParser(maxEventBytes: 20)
            let bytes = Data(text.utf8)
            var events: [ServerSentEvent] = []
            let size = max(1, (bytes.count + pieces - 1) / pieces)
            for offset in stride(from: 0, to: bytes.count, by: size) {
                events += try parser.parse(bytes.subdata(in: offset..<min(bytes.count, offset + size)))
            }
            return events
        }
        // A line of exactly 20 bytes; then two data lines holding 4 + 1 (the joining LF) + 15 bytes.
        #expect(try parse("data: 12345678901234\n\n") == [ServerSentEvent(data: "12345678901234")])
        #expect(try parse("data: aaaa\ndata: bbbbbbbbb\n\n") == [ServerSentEvent(data: "aaaa\nbbbbbbbbb")])
        let long = #expect(throws: RequestError.self) { try parse("data: 123456789012345\n\n") }
        #expect(long?.kind == .responseTooLarge)
        #expect(long?.description.contains("an event of the event stream is larger than the limit of 20 bytes") == true)
        let grown = #expect(throws: RequestError.self) { try parse("data: aaaa\ndata: bbbbbbbbbb\n\n") }
        #expect(grown?.kind == .responseTooLarge)
        // Comments and dispatched events hold nothing: only what an unfinished event keeps counts.
        let comments = String(repeating: ": 123456789012345678\n", count: 100)
        let events = String(repeating: "data: 12345678901234\n\n", count: 100)
        #expect(try parse(comments + events).count == 100)
    }

    @Test("A parser's default event limit is ResponseLimits' default line limit, 8 MiB")
    func defaultEventLimit() {
        #expect(ServerSentEventParser().maxEventBytes == 8 << 20)
        #expect(ResponseLimits().maxLineBytes == 8 << 20)
    }
}

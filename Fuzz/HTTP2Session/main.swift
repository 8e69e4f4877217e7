// A libFuzzer target for the client side of an HTTP/2 connection (HTTP2Session over the system nghttp2), built
// with RequestKit's model and HTTP/2 sources (see Fuzz/run-http2-fuzzer.sh).
//
// The session starts three requests (one with a body), then reads what the server sent: a valid SETTINGS frame
// (the server's preface), then the input after its first byte, which chooses how many bytes arrive per read (plus
// one). Whatever the bytes, the session must never crash, hang or read out of bounds, and what it reports must make
// sense: each stream ends at most once (an end, a failure or a retry), nothing is reported for a stream after its
// end or for a stream never started, a body piece or trailers only follow a final head, and nothing at all follows
// the connection's close. Reading the bytes in pieces must end each stream as reading them at once does, with the
// same heads, bodies and trailers (see ``summary(_:)``).

import Foundation

/// The server's preface: an empty SETTINGS frame.
let preface: [UInt8] = [0, 0, 0, 4, 0, 0, 0, 0, 0]

/// What the session reported for `wire`, offered `piece` bytes at a time, ended by the end of the byte stream.
func run(_ wire: [UInt8], piece: Int) -> [HTTP2Session.Output] {
    var settings = HTTP2Settings()
    settings.maxHeaderListBytes = 4096
    settings.streamWindow = 65_535
    guard let session = try? HTTP2Session(settings: settings) else { fatalError("the session could not be made") }
    let head = HTTP2RequestHead(method: "GET", scheme: "https", authority: "fuzz.example", path: "/", headers: [:])
    var started: Set<Int32> = []
    for index in 0..<3 {
        let body: HTTP2RequestBody? = index == 1 ? .bytes(Data(repeating: 0x61, count: 100_000)) : nil
        guard let stream = try? session.request(head, body: body) else { fatalError("a request was refused") }
        started.insert(stream)
    }
    _ = session.outgoing()
    var outputs: [HTTP2Session.Output] = []
    let bytes = preface + wire
    var offset = 0
    while offset < bytes.count {
        let end = min(bytes.count, offset + piece)
        let received = bytes[offset..<end].withUnsafeBytes { session.receive($0) }
        // Every body piece is read at once: the windows open as a consumer's would.
        for case .data(let stream, let data) in received { session.consumed(data.count, on: stream) }
        outputs += received
        _ = session.outgoing()
        offset = end
    }
    outputs += session.receivedEnd()
    check(outputs, started: started)
    return outputs
}

/// Traps when `outputs` break what the session promises (see the file's comment), printing them.
func check(_ outputs: [HTTP2Session.Output], started: Set<Int32>) {
    func precondition(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition else { return }
        fputs("\(message()) in \(outputs)\n", stderr)
        preconditionFailure(message())
    }
    var ended: Set<Int32> = []
    var answered: Set<Int32> = []
    var closed = false
    func open(_ stream: Int32) {
        precondition(!closed, "an output after the connection closed")
        precondition(started.contains(stream), "an output for stream \(stream), never started")
        precondition(!ended.contains(stream), "an output for stream \(stream) after its end")
    }
    for output in outputs {
        switch output {
        case .informational(let stream, let status, _):
            open(stream)
            precondition((100..<200).contains(status) && !answered.contains(stream), "an interim head out of place")
        case .head(let stream, let status, _):
            open(stream)
            precondition(!answered.contains(stream) && !(100..<200).contains(status), "a second final head")
            answered.insert(stream)
        case .data(let stream, _), .trailers(let stream, _):
            open(stream)
            precondition(answered.contains(stream), "a body or trailers before the final head")
        case .end(let stream):
            open(stream)
            precondition(answered.contains(stream), "an end without a final head")
            ended.insert(stream)
        case .failed(let stream, _):
            open(stream)
            ended.insert(stream)
        case .retry(let stream, _):
            open(stream)
            precondition(!answered.contains(stream), "a retry of a stream the server answered")
            ended.insert(stream)
        case .goingAway, .pingAnswered:
            precondition(!closed, "an output after the connection closed")
        case .closed:
            precondition(!closed, "a second close")
            closed = true
        }
    }
    precondition(closed, "the end of the byte stream did not close the connection")
}

/// What `outputs` say about each stream and the connection: each stream's heads, body, trailers and how it ended
/// (whether it ended, failed or is to be retried, not the failure's words), and whether the connection failed.
/// Where a read ends decides when a reset is written, and so whether a stream fails by its own reset or with the
/// connection: the same stream fails either way.
struct Summary: Equatable {
    var streams: [Int32: [String]] = [:]
    var closed: String = "open"
}

func summary(_ outputs: [HTTP2Session.Output]) -> Summary {
    var result = Summary()
    var bodies: [Int32: Data] = [:]
    for output in outputs {
        switch output {
        case .informational(let stream, let status, let headers):
            result.streams[stream, default: []].append("interim \(status) \(headers)")
        case .head(let stream, let status, let headers):
            result.streams[stream, default: []].append("head \(status) \(headers)")
        case .data(let stream, let piece): bodies[stream, default: Data()].append(piece)
        case .trailers(let stream, let fields): result.streams[stream, default: []].append("trailers \(fields)")
        case .end(let stream): result.streams[stream, default: []].append("end \(bodies[stream, default: Data()])")
        case .failed(let stream, _): result.streams[stream, default: []].append("failed")
        case .retry(let stream, _): result.streams[stream, default: []].append("retry")
        case .goingAway, .pingAnswered: break
        case .closed(let failure): result.closed = failure == nil ? "closed" : "failed"
        }
    }
    return result
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let piece = Int(data[0] & 0x3F) + 1
    let wire = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let whole = summary(run(wire, piece: wire.count + preface.count))
    let pieces = summary(run(wire, piece: piece))
    if whole != pieces {
        fputs("at once: \(whole)\nin pieces of \(piece): \(pieces)\n", stderr)
        preconditionFailure("reading in pieces reported something else than reading at once")
    }
    return 0
}

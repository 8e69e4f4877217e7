// A libFuzzer target for NativeTransport's response parser, built with the parser sources only (see
// Fuzz/run-http-fuzzer.sh).
//
// The first input byte chooses the request method (bit 0: HEAD) and how many bytes arrive per read (the other
// seven bits, plus one); the rest is what the server sent. The bytes are parsed the way HTTP1Connection reads
// them: a head (informational 1xx responses skipped), then the body its framing announces, then the end of the
// stream. Whatever the bytes, parsing must return or throw HTTP1ParseError, never crash, hang or read out of
// bounds; and reading them in small pieces must give exactly the outcome of reading them at once.

import Foundation

/// What parsing one response gave.
enum Outcome: Equatable {
    case response(ResponseHead, body: Data, unread: Int)
    case failure(HTTP1ParseError)
}

let headLimits = ResponseHead.Limits(maxHeadBytes: 1024, maxFields: 16)
let bodyLimits = HTTP1BodyDecoder.Limits(
    maxChunkLineBytes: 64, maxChunkSize: 1 << 20, maxTrailerBytes: 256, maxBodyBytes: 2048)

/// Parses `wire` as a response, offering it `piece` bytes at a time.
func parse(_ wire: UnsafeRawBufferPointer, isHeadRequest: Bool, piece: Int) -> Outcome {
    var buffer: [UInt8] = []
    var offered = 0
    func receive() -> Bool {
        guard offered < wire.count else { return false }
        let count = min(piece, wire.count - offered)
        buffer.append(contentsOf: wire[offered..<(offered + count)])
        offered += count
        return true
    }
    do {
        var informational = 0
        while true {
            let parsed = try buffer.withUnsafeBytes { try ResponseHead.parse($0, limits: headLimits) }
            guard let (head, length) = parsed else {
                if !receive() { throw HTTP1ParseError.truncatedHead }
                continue
            }
            buffer.removeFirst(length)
            if head.isInformational {
                informational += 1
                if informational > 10 { throw HTTP1ParseError.tooManyInformationalResponses }
                continue
            }
            var decoder = HTTP1BodyDecoder(framing: try head.framing(isHeadRequest: isHeadRequest), limits: bodyLimits)
            var body = Data()
            while !decoder.isComplete {
                let used = try buffer.withUnsafeBytes { try decoder.decode($0, into: &body) }
                buffer.removeFirst(used)
                if decoder.isComplete { break }
                if !receive() { try decoder.finishAtEndOfStream() }
            }
            precondition(body.count == decoder.bodyBytes, "the body count disagrees with the bytes appended")
            return .response(head, body: body, unread: buffer.count + wire.count - offered)
        }
    } catch let error as HTTP1ParseError {
        return .failure(error)
    } catch {
        preconditionFailure("parsing threw \(error), which is not an HTTP1ParseError")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPResponseParser(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    guard let control = input.first else { return 0 }
    let wire = UnsafeRawBufferPointer(rebasing: input[1...])
    let isHeadRequest = control & 1 == 1
    let whole = parse(wire, isHeadRequest: isHeadRequest, piece: max(1, wire.count))
    let pieces = parse(wire, isHeadRequest: isHeadRequest, piece: Int(control >> 1) + 1)
    precondition(whole == pieces, "reading in pieces changed the outcome: \(whole) vs \(pieces)")
    if case .response(let head, _, _) = whole {
        precondition(head.status >= 100 && head.status <= 999, "status out of range")
        precondition(head.fields.count <= headLimits.maxFields, "more fields than the limit")
    }
    return 0
}

import Foundation
import RequestKit

extension BuiltInRoutes {
    /// `/hostile/{kind}`: a response a hostile server would send, for testing a client's limits.
    ///
    /// - `gzip-bomb?bytes=N&framing=length|chunked`: `Content-Encoding: gzip` whose body inflates to about `N`
    ///   zero bytes (10 GiB by default) while only about `N / 1032` bytes are sent; the stream never ends
    ///   properly, so a client that reads it all fails. `length` (the default) sends `Content-Length`.
    /// - `br-bomb?bytes=N&framing=length|chunked`, `zstd-bomb?…`: `Content-Encoding: br` or `zstd`, a complete stream
    ///   of `N` zero bytes (16 MiB by default, at most 64 MiB) compressed by the system library (Linux only; `501`
    ///   elsewhere), so that only a few hundred bytes are sent.
    /// - `endless?framing=chunked|close&pause=ms`: zero bytes, 64 KiB at a time, until the client goes away; chunked
    ///   (the default) or delimited by the end of the connection; with `pause`, that many milliseconds (0 to 1000)
    ///   between blocks instead of as fast as the socket takes them.
    /// - `bad-validators?syntax=1`: `ETag: "a<0x01>b"` and `Last-Modified` with a control character, body `ok`;
    ///   with `syntax=1`, values that are valid header text but not validators: `ETag: a b`, `Last-Modified: soon`.
    /// - `bad-event-id`: an event stream with `id: 1` and `data: first`, then `id: a<0x01>b` and `data: second`,
    ///   then the connection closes.
    /// - `content-length?value=V`: `Content-Length: V` (percent-decoded, so `1%200` is `1 0`) and the body
    ///   `0123456789`, then the connection closes.
    func hostile(_ request: TestRequest, kind: String) -> TestResponse {
        switch kind {
        case "gzip-bomb":
            guard let bytes = number(request, "bytes", default: Double(10 << 30), in: 0...Double(1 << 50)) else {
                return Self.badRequest("bytes must be a number from 0 to 2^50")
            }
            return Self.gzipBomb(decodedBytes: Int(bytes), isChunked: request.queryValue("framing") == "chunked")
        case "br-bomb", "zstd-bomb":
            guard let bytes = number(request, "bytes", default: Double(16 << 20), in: 0...Double(64 << 20)) else {
                return Self.badRequest("bytes must be a number from 0 to 2^26")
            }
            return Self.compressedZeros(
                count: Int(bytes), coding: kind == "br-bomb" ? .brotli : .zstd,
                isChunked: request.queryValue("framing") == "chunked")
        case "endless":
            guard let pause = number(request, "pause", default: 0, in: 0...1000) else {
                return Self.badRequest("pause must be a number of milliseconds from 0 to 1000")
            }
            let block = Data(count: 64 * 1024)
            let rest = Duration.milliseconds(Int(pause))
            if request.queryValue("framing") == "close" {
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n"
                return TestResponse.stepped(raw: true) {
                    Self.endless(first: .writeRaw(Data(head.utf8)), block: .writeRaw(block), rest: rest)
                }
            }
            return TestResponse.stepped(headers: [("Content-Type", "application/octet-stream")]) {
                Self.endless(first: nil, block: .write(block), rest: rest)
            }
        case "bad-validators":
            if request.queryValue("syntax") != nil {
                return TestResponse(
                    headers: [("Content-Type", "text/plain"), ("ETag", "a b"), ("Last-Modified", "soon")],
                    body: .data(Data("ok".utf8)))
            }
            return Self.raw(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nETag: \"a\u{01}b\"\r\n"
                    + "Last-Modified: Tue, 01 Jan 2030\u{01} 00:00:00 GMT\r\nContent-Length: 2\r\n\r\nok")
        case "bad-event-id":
            // Steps rather than raw bytes, so that HTTP/2 streams it too before the connection closes.
            return TestResponse.stepped(headers: [("Content-Type", "text/event-stream")]) {
                var steps: [BodyStep] = [
                    .write(Data("id: 1\ndata: first\n\nid: a\u{01}b\ndata: second\n\n".utf8)), .close,
                ]
                return AnyIterator { steps.isEmpty ? nil : steps.removeFirst() }
            }
        case "content-length":
            let value = request.queryValue("value") ?? ""
            return Self.raw("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(value)\r\n\r\n0123456789")
        default:
            return .text(
                "unknown hostile response \"\(kind)\"; try gzip-bomb, br-bomb, zstd-bomb, endless, bad-validators, bad-event-id, "
                    + "content-length",
                status: 404)
        }
    }

    /// A response written byte for byte, after which the connection closes.
    private static func raw(_ text: String) -> TestResponse {
        TestResponse.stepped(raw: true) { AnyIterator([BodyStep.writeRaw(Data(text.utf8))].makeIterator()) }
    }

    /// `first`, then `block` again and again, with a pause of `rest` after each when it is not zero, until the
    /// client goes away.
    private static func endless(first: BodyStep?, block: BodyStep, rest: Duration) -> AnyIterator<BodyStep> {
        var pending = first
        var wrote = false
        return AnyIterator {
            if let step = pending {
                pending = nil
                return step
            }
            if wrote && rest > .zero {
                wrote = false
                return .pause(rest)
            }
            wrote = true
            return block
        }
    }

    /// The start of a gzip member whose deflate block (dynamic Huffman codes: a 1-bit code for a match of 258
    /// bytes, a 1-bit code for distance 1) repeats a single zero byte: every zero byte that follows is four
    /// more matches, 1,032 decoded bytes. The block is never final, so the stream never ends properly.
    private static let gzipBombPrefix: [UInt8] = [
        0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
        0xEC, 0xC0, 0x81, 0x00, 0x00, 0x00, 0x00, 0x80, 0xA0, 0xFD, 0xA9, 0x17, 0xA9, 0x00,
    ]

    private static func compressedZeros(count: Int, coding: ContentCoding, isChunked: Bool) -> TestResponse {
        guard let body = try? ContentCompressor.compress(Data(count: count), with: coding) else {
            return .text("\(coding.name) is not available on this platform", status: 501)
        }
        let headers = [("Content-Type", "application/octet-stream"), ("Content-Encoding", coding.name)]
        if isChunked { return TestResponse(headers: headers, body: .chunked([body])) }
        return TestResponse(headers: headers, body: .data(body))
    }

    private static func gzipBomb(decodedBytes: Int, isChunked: Bool) -> TestResponse {
        let zeroCount = decodedBytes / 1032 + 1
        var headers = [("Content-Type", "application/octet-stream"), ("Content-Encoding", "gzip")]
        if !isChunked { headers.append(("Content-Length", String(gzipBombPrefix.count + zeroCount))) }
        return TestResponse.stepped(headers: headers) {
            let block = Data(count: 64 * 1024)
            var left = zeroCount
            var sentPrefix = false
            return AnyIterator {
                if !sentPrefix {
                    sentPrefix = true
                    return .write(Data(gzipBombPrefix))
                }
                guard left > 0 else { return nil }
                let count = min(left, block.count)
                left -= count
                return .write(count == block.count ? block : block.prefix(count))
            }
        }
    }
}

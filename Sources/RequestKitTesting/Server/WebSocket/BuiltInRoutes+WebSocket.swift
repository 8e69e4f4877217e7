import Foundation
import RequestKit

extension BuiltInRoutes {
    /// `/websocket/{kind}` and `/websocket/hostile/{kind}`: WebSocket servers to test a client against (every one
    /// answers pings and the client's close, and records what the client did in ``TestServer/webSocketEvents``).
    ///
    /// - `echo`: sends every message back, compressed when permessage-deflate was agreed.
    /// - `close?code=C&reason=R`: closes at once with code `C` (1000 by default) and reason `R`.
    /// - `stream?count=N&size=S`: sends `N` binary messages of `S` bytes (100 of 1,024 by default) as fast as the
    ///   connection takes them, then closes with 1000.
    ///
    /// Hostile servers, each breaking one rule or limit:
    /// - `oversized-frame?bytes=N`: a frame head announcing `N` bytes (2^40 by default), 1 KiB of it, then silence.
    /// - `oversized-message?frames=N&size=S`: a binary message of `N` fragments of `S` bytes (1,024 of 64 KiB by
    ///   default) that never ends.
    /// - `compression-bomb?bytes=N`: a permessage-deflate message (RSV1, so offer the extension) that inflates to `N`
    ///   zero bytes (64 MiB by default, at most 1 GiB) from about `N / 1000` bytes sent.
    /// - `invalid-utf8`: a text message whose second fragment holds a sequence no UTF-8 has (`F4` then `90`, split
    ///   across the fragments); its last fragment comes 5 s later, so a client that checks only whole messages waits.
    /// - `long-control`: a ping of 126 bytes. `fragmented-control`: a ping without FIN.
    /// - `bad-close-code?code=C`: a close frame with code `C` (1005 by default, never valid on the wire).
    /// - `reserved-opcode`: a frame with opcode 3. `reserved-bits`: a text frame with RSV2 set. `masked`: a masked
    ///   text frame.
    /// - `no-close`: a text message, then the connection ends without a closing handshake.
    /// - `ping-flood?count=N`: `N` pings of 125 bytes (100,000 by default) as fast as the connection takes them, then
    ///   the text `after the flood`.
    /// - `trickle?interval=MS`: the text message `trickled`, one byte every `MS` milliseconds (1,000 by default).
    func webSocket(_ request: TestRequest, path: [String]) -> TestResponse {
        switch (path.first, path.count) {
        case ("echo", 1):
            return .webSocket([.echo])
        case ("close", 1):
            guard let number = number(request, "code", default: 1000, in: 1000...4999),
                let code = WebSocketCloseCode(UInt16(number))
            else { return Self.badRequest("code must be a close code a frame may carry") }
            return .webSocket([.close(code, reason: request.queryValue("reason") ?? "")])
        case ("stream", 1):
            guard let count = number(request, "count", default: 100, in: 0...1_000_000),
                let size = number(request, "size", default: 1024, in: 0...Double(16 << 20))
            else { return Self.badRequest("count must be 0 to 10^6 and size 0 to 2^24") }
            let message = TestWebSocketStep.send(.binary(Data(count: Int(size))))
            return .webSocket(Array(repeating: message, count: Int(count)) + [.close(.normalClosure)])
        case ("hostile", 2):
            return hostileWebSocket(request, kind: path[1])
        default:
            return .text("not found: \(request.path)", status: 404)
        }
    }

    private func hostileWebSocket(_ request: TestRequest, kind: String) -> TestResponse {
        switch kind {
        case "oversized-frame":
            guard let bytes = number(request, "bytes", default: Double(1 << 40), in: 1024...Double(1 << 62)) else {
                return Self.badRequest("bytes must be 1024 to 2^62")
            }
            var head = Data()
            WebSocketFrameEncoder.appendHead(
                isFinal: true, reservedBits: 0, opcode: 0x2, payloadLength: Int(bytes), maskingKey: nil, to: &head)
            return .webSocket([.raw(head + Data(count: 1024))])
        case "oversized-message":
            guard let frames = number(request, "frames", default: 1024, in: 1...1_000_000),
                let size = number(request, "size", default: 65536, in: 1...Double(16 << 20))
            else { return Self.badRequest("frames must be 1 to 10^6 and size 1 to 2^24") }
            let payload = Data(count: Int(size))
            let first = TestWebSocketStep.frame(opcode: 0x2, payload: payload, isFinal: false)
            let more = TestWebSocketStep.frame(opcode: 0x0, payload: payload, isFinal: false)
            return .webSocket([first] + Array(repeating: more, count: Int(frames) - 1))
        case "compression-bomb":
            guard let bytes = number(request, "bytes", default: Double(64 << 20), in: 0...Double(1 << 30)) else {
                return Self.badRequest("bytes must be 0 to 2^30")
            }
            guard let payload = Self.deflatedZeros(count: Int(bytes)) else {
                return .text("zlib could not compress the bomb", status: 500)
            }
            return .webSocket([.frame(opcode: 0x2, payload: payload, reservedBits: 0x4)])
        case "invalid-utf8":
            return .webSocket([
                .frame(opcode: 0x1, payload: Data("κόσμε ".utf8) + Data([0xF4]), isFinal: false),
                .frame(opcode: 0x0, payload: Data([0x90, 0x80, 0x80]), isFinal: false), .pause(.seconds(5)),
                .frame(opcode: 0x0, payload: Data("end".utf8)),
            ])
        case "long-control":
            return .webSocket([.frame(opcode: 0x9, payload: Data(count: 126))])
        case "fragmented-control":
            return .webSocket([.frame(opcode: 0x9, payload: Data("ping".utf8), isFinal: false)])
        case "bad-close-code":
            guard let code = number(request, "code", default: 1005, in: 0...65535) else {
                return Self.badRequest("code must be 0 to 65535")
            }
            let value = UInt16(code)
            return .webSocket([.frame(opcode: 0x8, payload: Data([UInt8(value >> 8), UInt8(value & 0xFF)]))])
        case "reserved-opcode":
            return .webSocket([.frame(opcode: 0x3, payload: Data("?".utf8))])
        case "reserved-bits":
            return .webSocket([.frame(opcode: 0x1, payload: Data("?".utf8), reservedBits: 0x2)])
        case "masked":
            return .webSocket([.frame(opcode: 0x1, payload: Data("masked".utf8), isMasked: true)])
        case "no-close":
            return .webSocket([.send(.text("goodbye")), .disconnect])
        case "ping-flood":
            guard let count = number(request, "count", default: 100_000, in: 0...10_000_000) else {
                return Self.badRequest("count must be 0 to 10^7")
            }
            let ping = TestWebSocketStep.frameBytes(
                opcode: 0x9, payload: Data(count: 125), isFinal: true, reservedBits: 0, isMasked: false)
            var batch = Data()
            for _ in 0..<min(1000, Int(count)) { batch.append(ping) }
            var steps = Array(repeating: TestWebSocketStep.raw(batch), count: Int(count) / 1000)
            let rest = Int(count) % 1000
            if rest > 0 { steps.append(.raw(batch.prefix(rest * ping.count))) }
            return .webSocket(steps + [.send(.text("after the flood"))])
        case "trickle":
            guard let interval = number(request, "interval", default: 1000, in: 0...60_000) else {
                return Self.badRequest("interval must be 0 to 60000 milliseconds")
            }
            let frame = TestWebSocketStep.frameBytes(
                opcode: 0x1, payload: Data("trickled".utf8), isFinal: true, reservedBits: 0, isMasked: false)
            return .webSocket([.trickle(frame, interval: .milliseconds(Int(interval)))])
        default:
            return .text("not found: \(request.path)", status: 404)
        }
    }

    /// `count` zero bytes as one permessage-deflate payload, compressed a MiB at a time so that the zeros are never
    /// all in memory: each piece ends with a sync flush, whose empty block stays between pieces.
    static func deflatedZeros(count: Int) -> Data? {
        guard let deflater = WebSocketDeflater(maxWindowBits: 15, noContextTakeover: false) else { return nil }
        let block = Data(count: 1 << 20)
        var payload = Data()
        var left = count
        repeat {
            let piece = block.prefix(min(left, block.count))
            guard let compressed = piece.withUnsafeBytes({ deflater.compress($0) }) else { return nil }
            if !payload.isEmpty { payload.append(contentsOf: [0x00, 0x00, 0xFF, 0xFF]) }
            payload.append(compressed)
            left -= piece.count
        } while left > 0
        return payload
    }
}

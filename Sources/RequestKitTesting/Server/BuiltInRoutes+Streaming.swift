import Foundation

extension BuiltInRoutes {
    /// `/bytes/{n}?seed=S`: `n` (at most 100 MiB) bytes of ``TestPayload/randomBytes(count:seed:)``.
    func bytes(_ request: TestRequest, count text: String) -> TestResponse {
        guard let count = Int(text), (0...100 * 1024 * 1024).contains(count) else {
            return Self.badRequest("byte count must be a number from 0 to 104857600, not \"\(text)\"")
        }
        let seedText = request.queryValue("seed") ?? "0"
        guard let seed = UInt64(seedText) else { return Self.badRequest("invalid seed \"\(seedText)\"") }
        return TestResponse(
            headers: [("Content-Type", "application/octet-stream")],
            body: .data(TestPayload.randomBytes(count: count, seed: seed)))
    }

    /// `/stream/{n}`: `n` (at most 1000) JSON lines, each the echo document plus `"id"`, one chunk per line.
    func stream(_ request: TestRequest, lines text: String) -> TestResponse {
        guard let count = Int(text), (0...1000).contains(count) else {
            return Self.badRequest("line count must be a number from 0 to 1000, not \"\(text)\"")
        }
        let members = echoMembers(request)
        let chunks = (0..<count).map { index in
            var line = members
            line["id"] = .number(index)
            return Data((JSONValue.object(line).serialized() + "\n").utf8)
        }
        return TestResponse(headers: [("Content-Type", "application/json")], body: .chunked(chunks))
    }

    /// `/drip?numbytes=N&duration=S&delay=S&code=C`: `N` `*` bytes spread over `duration` after `delay`.
    func drip(_ request: TestRequest) -> TestResponse {
        guard let count = number(request, "numbytes", default: 10, in: 0...10_000_000),
            let duration = number(request, "duration", default: 2, in: 0...300),
            let delay = number(request, "delay", default: 0, in: 0...30),
            let code = number(request, "code", default: 200, in: 200...599)
        else {
            return Self.badRequest("numbytes, duration, delay and code must be numbers in range")
        }
        let byteCount = Int(count)
        let pause = Duration.milliseconds(byteCount > 1 ? Int(duration * 1000 / Double(byteCount - 1)) : 0)
        let response = TestResponse.stepped(
            status: Int(code),
            headers: [("Content-Type", "application/octet-stream"), ("Content-Length", String(byteCount))]
        ) {
            var index = 0
            var paused = false
            return AnyIterator {
                guard index < byteCount else { return nil }
                if index > 0 && pause > .zero && !paused {
                    paused = true
                    return .pause(pause)
                }
                paused = false
                index += 1
                return .write(Data([UInt8(ascii: "*")]))
            }
        }
        return response.delayed(by: .milliseconds(Int(delay * 1000)))
    }

    /// `/chunked?chunks=N&size=S&interval=MS`: `N` chunks of `S` letters, then trailers with the chunk count
    /// and the body's SHA-256.
    func chunked(_ request: TestRequest) -> TestResponse {
        guard let count = number(request, "chunks", default: 3, in: 0...10_000),
            let size = number(request, "size", default: 8, in: 1...1_048_576),
            let interval = number(request, "interval", default: 0, in: 0...10_000)
        else {
            return Self.badRequest("chunks, size and interval must be numbers in range")
        }
        let chunks = (0..<Int(count)).map { Data(repeating: UInt8(ascii: "a") + UInt8($0 % 26), count: Int(size)) }
        var digest = SHA256Digest()
        for chunk in chunks { digest.update(chunk) }
        return TestResponse(
            headers: [("Content-Type", "text/plain"), ("Trailer", "X-Chunk-Count, X-Content-SHA256")],
            body: .chunked(
                chunks, interval: interval > 0 ? .milliseconds(Int(interval)) : nil,
                trailers: [("X-Chunk-Count", String(chunks.count)), ("X-Content-SHA256", digest.finalizeHex())]))
    }

    /// `/large/{bytes}`: a body of ``TestPayload/largeBodyByte(at:)`` bytes, generated and sent 64 KiB at a time.
    func large(bytes text: String) -> TestResponse {
        guard let total = Int(text), total >= 0 else {
            return Self.badRequest("byte count must be a non-negative number, not \"\(text)\"")
        }
        return TestResponse.stepped(
            headers: [("Content-Type", "application/octet-stream"), ("Content-Length", String(total))]
        ) {
            let blockSize = 64 * 1024
            let pattern = TestPayload.largeBody(count: blockSize + 251)
            var offset = 0
            return AnyIterator {
                guard offset < total else { return nil }
                let count = min(blockSize, total - offset)
                let start = offset % 251
                offset += count
                return .write(pattern.subdata(in: start..<(start + count)))
            }
        }
    }

    /// `/upload`: the size and SHA-256 of the received body.
    func upload(_ request: TestRequest) -> TestResponse {
        .json(
            .object([
                "bytes": .number(request.body.count), "sha256": .string(SHA256Digest.hex(of: request.body)),
            ]))
    }

    /// A numeric query parameter, its default when absent, or `nil` when it is not a number within `range`.
    func number(
        _ request: TestRequest, _ name: String, default value: Double, in range: ClosedRange<Double>
    )
        -> Double?
    {
        guard let text = request.queryValue(name) else { return value }
        guard let number = Double(text), range.contains(number) else { return nil }
        return number
    }
}

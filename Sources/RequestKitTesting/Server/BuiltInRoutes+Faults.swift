import Foundation

extension BuiltInRoutes {
    /// `/sequence/{codes}?retry_after=S`: the n-th request to this exact path gets the n-th status of the
    /// comma-separated list (the last one repeats), with `X-Attempt: n`; for retry tests.
    ///
    /// `/sequence/503,503,200` fails twice, then succeeds. Each distinct path counts separately, per server.
    func sequence(_ request: TestRequest, codes text: String) -> TestResponse {
        let codes = text.split(separator: ",").map { Int($0) }
        guard !codes.isEmpty, codes.allSatisfy({ $0.map { (200...599).contains($0) } == true }) else {
            return Self.badRequest("codes must be a comma-separated list of numbers from 200 to 599, not \"\(text)\"")
        }
        let attempt = core.nextAttempt(for: request.path)
        let code = codes[min(attempt, codes.count) - 1] ?? 200
        var response = TestResponse.status(code)
        response.headers.append(("X-Attempt", String(attempt)))
        if let retryAfter = request.queryValue("retry_after"), !(200..<300).contains(code) {
            guard let seconds = Int(retryAfter), seconds >= 0 else {
                return Self.badRequest("retry_after must be a non-negative number of seconds")
            }
            response.headers.append(("Retry-After", String(seconds)))
        }
        return response
    }

    /// `/fault/{kind}`: a broken response for testing a client's error handling.
    ///
    /// - `close`: the connection closes without any response.
    /// - `truncate`: `Content-Length: 100` but only 10 body bytes, then the connection closes.
    /// - `malformed-status`: a status line that is not HTTP.
    /// - `bad-chunk`: a chunked body with an invalid chunk size.
    /// - `hang`: no response at all until the client gives up (at most 300 s).
    /// - `hang-body`: headers promising 10 bytes, then nothing until the client gives up (at most 300 s).
    /// - `short-length`: `Content-Length: 5` followed by 10 body bytes, then the connection closes.
    /// - `huge-headers`: a status line followed by 1 MiB of header fields.
    /// - `huge-chunk`: a chunked body whose chunk size does not fit in 64 bits.
    /// - `garbage`: bytes that are not HTTP at all, then the connection closes.
    func fault(kind: String) -> TestResponse {
        let bytes: String
        switch kind {
        case "short-length":
            bytes = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n0123456789"
        case "huge-headers":
            let field = "X-Filler: " + String(repeating: "a", count: 1000) + "\r\n"
            bytes = "HTTP/1.1 200 OK\r\n" + String(repeating: field, count: 1049) + "Content-Length: 0\r\n\r\n"
        case "huge-chunk":
            bytes = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\nabc\r\n"
        case "garbage": bytes = "\u{16}\u{03}\u{01}\u{00}\u{a5}garbage that is not HTTP\r\n\r\n"

        case "close": bytes = ""
        case "truncate": bytes = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n0123456789"
        case "malformed-status": bytes = "HTTP/1.1 two-hundred OK\r\nContent-Length: 0\r\n\r\n"
        case "bad-chunk": bytes = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n"
        case "hang": bytes = ""
        case "hang-body": bytes = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\n"
        default:
            return .text(
                "unknown fault \"\(kind)\"; try close, truncate, short-length, malformed-status, garbage, bad-chunk, "
                    + "huge-chunk, huge-headers, hang, hang-body",
                status: 404)
        }
        let hangs = kind.hasPrefix("hang")
        return TestResponse.stepped(raw: true) {
            var steps: [BodyStep] = bytes.isEmpty ? [] : [.writeRaw(Data(bytes.utf8))]
            if hangs { steps.append(.pause(.seconds(300))) }
            return AnyIterator(steps.makeIterator())
        }
    }
}

import Foundation

/// How one ``TestResponse`` goes on the wire: the head the server writes (with the framing, `Date` and
/// `Connection` headers it adds), how the body is framed, and where the body comes from.
///
/// ```swift
/// let plan = ResponsePlan(response, for: request, keepAlive: true)
/// ```
struct ResponsePlan {
    /// Where the body comes from.
    enum Source {
        /// Bytes written with the head (empty when the body is discarded).
        case bytes
        /// Steps the event loop plays.
        case steps(BodySteps)
        /// A closure that writes through a ``TestResponseWriter`` on a handler thread.
        case closure(@Sendable (TestResponseWriter) throws -> Void)
    }

    /// The status line and headers, with `bytes` bodies appended; empty for a raw response.
    var head: Data
    var framing: TestResponseWriter.Framing
    var discardsBody: Bool
    /// Whether the connection closes after the response.
    var closeAfter: Bool
    /// The declared `Content-Length` of a streamed body, which the bytes written must match to keep the
    /// connection open.
    var declaredLength: Int?
    var source: Source

    init(_ response: TestResponse, for request: TestRequest, keepAlive: Bool) {
        let isHead = request.method == "HEAD"
        let isHTTP10 = request.httpVersion == "HTTP/1.0"
        var closeAfter = !keepAlive || response.header("Connection").map { $0.lowercased().contains("close") } == true
        var headers = response.headers
        let bodyAllowed = !HTTPStatusReason.forbidsBody(response.status)
        let discardsBody = isHead || !bodyAllowed
        var framing = TestResponseWriter.Framing.identity
        switch response.body {
        case .raw(let write):
            self.head = Data()
            self.framing = .raw
            self.discardsBody = false
            self.closeAfter = true
            self.declaredLength = nil
            self.source = response.steps.map(Source.steps) ?? .closure(write)
            return
        case .data(let data):
            if let declared = response.header("Content-Length") {
                if declared != String(data.count) { closeAfter = true }
            } else if bodyAllowed {
                headers.append(("Content-Length", String(data.count)))
            }
        case .chunked, .stream:
            if response.header("Content-Length") != nil || response.header("Transfer-Encoding") != nil {
                framing = response.header("Content-Length") != nil ? .identity : .chunked
            } else if isHTTP10 {
                closeAfter = true
            } else {
                framing = .chunked
                if bodyAllowed { headers.append(("Transfer-Encoding", "chunked")) }
            }
        }
        if response.header("Date") == nil {
            headers.append(("Date", HTTPDate.string(from: Date())))
        }
        if response.header("Connection") == nil {
            if closeAfter {
                headers.append(("Connection", "close"))
            } else if isHTTP10 {
                headers.append(("Connection", "keep-alive"))
            }
        }
        var text = "HTTP/1.1 \(response.status) \(response.reason)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        var head = Data(text.utf8)
        var source = Source.bytes
        var declaredLength: Int?
        switch response.body {
        case .data(let data):
            if !discardsBody { head.append(data) }
        case .chunked(let chunks, let interval, let trailers):
            source = .steps(Self.steps(chunks: chunks, interval: interval, trailers: trailers))
        case .stream(let write):
            if !discardsBody {
                declaredLength = response.header("Content-Length").flatMap(Int.init)
                source = response.steps.map(Source.steps) ?? .closure(write)
            }
        case .raw:
            break
        }
        self.head = head
        self.framing = framing
        self.discardsBody = discardsBody
        self.closeAfter = closeAfter
        self.declaredLength = declaredLength
        self.source = source
    }

    /// A chunked body's chunks, with a pause between them, then its end with `trailers`.
    private static func steps(
        chunks: [Data], interval: Duration?, trailers: [(name: String, value: String)]
    ) -> BodySteps {
        BodySteps {
            var index = 0
            var paused = false
            var finished = false
            return AnyIterator {
                if index < chunks.count {
                    if index > 0, let interval, !paused {
                        paused = true
                        return .pause(interval)
                    }
                    paused = false
                    defer { index += 1 }
                    return .write(chunks[index])
                }
                guard !finished else { return nil }
                finished = true
                return .finish(trailers: trailers)
            }
        }
    }
}

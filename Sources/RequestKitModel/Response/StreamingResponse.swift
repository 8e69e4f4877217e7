import Foundation

/// A response whose head has arrived and whose body is still coming: iterate it for chunks of bytes.
///
/// The body is read once. Stopping early (breaking out of the loop, cancelling the task) closes the connection.
///
/// ```swift
/// let response = try await Request { Url("http://127.0.0.1:8080/stream/3") }.stream()
/// print(response.head.status)
/// for try await line in response.lines { print(line) }
/// ```
public struct StreamingResponse: AsyncSequence, Sendable {
    public typealias Element = Data

    /// The status, headers and URL; its `body` is empty.
    public var head: Response
    /// The body, chunk by chunk.
    public var body: ResponseBodyStream

    /// Creates a streaming response.
    ///
    /// ```swift
    /// let streaming = StreamingResponse(head: Response(status: .ok), body: ResponseBodyStream(Data("hi".utf8)))
    /// ```
    public init(head: Response, body: ResponseBodyStream) {
        var head = head
        head.body = Data()
        self.head = head
        self.body = body
    }

    /// Where the request's time went (``RequestMetrics``): the head's metrics until the body ends, then with the
    /// last attempt completed (its end, body bytes and byte counts).
    ///
    /// ```swift
    /// let streaming = try await Request { Url("http://127.0.0.1:8080/events") }.stream()
    /// for try await _ in streaming {}
    /// print(streaming.metrics.attempts.last?.timeline ?? "")
    /// ```
    public var metrics: RequestMetrics {
        var metrics = head.metrics
        if let ended = body.buffer.completedAttempt, !metrics.attempts.isEmpty {
            metrics.attempts[metrics.attempts.count - 1] = ended
        }
        return metrics
    }

    /// The body's lines as text; see ``ResponseBodyStream/lines``.
    public var lines: ResponseLines { ResponseLines(base: body, head: head) }

    /// The expected body length from `Content-Length`, when the server sent a valid one: digits with optional
    /// whitespace around them, or a list of equal such values (the rule the native transport frames bodies by);
    /// nil for anything else (a sign, a second number, other characters, more than 18 digits).
    public var expectedLength: Int64? {
        head.headers["Content-Length"].flatMap { HTTPSyntax.contentLength($0) }.map { Int64($0) }
    }

    public func makeAsyncIterator() -> ResponseBodyStream.Iterator {
        body.makeAsyncIterator()
    }

    /// Reads the rest of the body into memory, failing when it exceeds `limit` bytes.
    ///
    /// ```swift
    /// let data = try await streaming.collect(upTo: 1 << 20)
    /// ```
    /// - Parameter limit: The most bytes to accept.
    /// - Returns: The body.
    /// - Throws: ``RequestError`` from the transfer, or one of kind ``RequestError/Kind/responseTooLarge`` when
    ///   the body is longer than `limit` (the connection is then closed).
    public func collect(upTo limit: Int = .max) async throws(RequestError) -> Data {
        var data = Data()
        var limiter = ResponseBodyLimiter(maxBytes: limit)
        do {
            for try await chunk in body {
                try limiter.add(chunk.count, response: head)
                data.append(chunk)
            }
        } catch {
            // Stops the transfer now rather than when the last copy of the stream is dropped.
            body.buffer.terminate()
            throw RequestError.wrapping(error)
        }
        return data
    }
}

extension StreamingResponse: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The head's redacted ``Response/description``.
    ///
    /// ```swift
    /// print(try await request.stream())  // 200 OK (0 bytes) from http://127.0.0.1:8080/log
    /// ```
    public var description: String { head.description }

    /// The head's redacted ``Response/debugDescription``.
    public var debugDescription: String { head.debugDescription }

    /// What `dump(stream)` shows: the redacted head.
    public var customMirror: Mirror { Mirror(self, children: ["head": head], displayStyle: .struct) }
}

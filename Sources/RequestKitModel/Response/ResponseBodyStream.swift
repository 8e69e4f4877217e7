import Foundation

/// A response body arriving chunk by chunk: an `AsyncSequence` of `Data` with a bounded buffer.
///
/// **Bounded buffer:** at most about ``TransferRequest/bufferLimit`` bytes wait here. When the consumer falls
/// behind, ``Continuation/yield(_:)`` returns `false` and the transport holds off until the consumer has drained
/// the buffer below half the limit (``Continuation/onDemand``). How it holds off is the transport's business:
/// ``URLSessionTransport`` suspends the task on Apple platforms (backpressure up to the server), and on Linux,
/// where FoundationNetworking cannot pause a transfer, writes what keeps arriving to a temporary spool file that
/// feeds the buffer as it drains (memory bounded, disk holding what the consumer lags behind).
///
/// **Cancellation:** cancelling the consuming task, or dropping the sequence before the end, runs
/// ``Continuation/onTermination``, which closes the connection. The body can be iterated once; errors thrown are
/// ``RequestError``s.
///
/// ```swift
/// for try await chunk in try await request.stream() {
///     try handle.write(contentsOf: chunk)
/// }
/// ```
public struct ResponseBodyStream: AsyncSequence, Sendable {
    public typealias Element = Data

    package let buffer: ResponseBodyBuffer
    private let consumer: Consumer
    /// The longest line ``lines`` delivers: the request's ``ResponseLimits/maxLineBytes``, set by the pipeline.
    package var maxLineBytes = ResponseLimits.defaultMaxLineBytes

    /// A body that is already complete, delivered as a single chunk (none when empty).
    ///
    /// ```swift
    /// let body = ResponseBodyStream(Data("done".utf8))
    /// ```
    public init(_ data: Data) {
        let (stream, continuation) = Self.makeStream(bufferLimit: Swift.max(1, data.count))
        _ = continuation.yield(data)
        continuation.finish()
        self = stream
    }

    init(buffer: ResponseBodyBuffer) {
        self.buffer = buffer
        self.consumer = Consumer(buffer: buffer)
    }

    /// Creates a stream and the continuation a transport feeds it through.
    ///
    /// ```swift
    /// let (body, continuation) = ResponseBodyStream.makeStream(bufferLimit: request.bufferLimit)
    /// continuation.onDemand = { socketReader.resume() }
    /// continuation.onTermination = { socket.close() }
    /// if !continuation.yield(chunk) { socketReader.pause() }
    /// continuation.finish()
    /// ```
    /// - Parameter bufferLimit: The buffered byte count at which ``Continuation/yield(_:)`` asks to pause.
    /// - Returns: The stream for the consumer and the continuation for the producer.
    public static func makeStream(
        bufferLimit: Int = TransferRequest.defaultBufferLimit
    ) -> (stream: ResponseBodyStream, continuation: Continuation) {
        let buffer = ResponseBodyBuffer(limit: Swift.max(1, bufferLimit))
        return (ResponseBodyStream(buffer: buffer), Continuation(buffer: buffer))
    }

    /// The body's lines as text; see ``ResponseLines``.
    ///
    /// ```swift
    /// for try await line in try await request.stream().lines { print(line) }
    /// ```
    public var lines: ResponseLines { ResponseLines(base: self, head: nil) }

    public func makeAsyncIterator() -> Iterator {
        Iterator(consumer: consumer)
    }

    /// Reads the chunks of a ``ResponseBodyStream``; only one iterator may read a stream.
    ///
    /// ```swift
    /// var iterator = body.makeAsyncIterator()
    /// let first = try await iterator.next()
    /// ```
    public struct Iterator: AsyncIteratorProtocol {
        private let consumer: Consumer

        init(consumer: Consumer) {
            self.consumer = consumer
        }

        /// The next chunk, or nil at the end of the body.
        ///
        /// - Throws: ``RequestError`` when the transfer fails or the task is cancelled.
        public mutating func next() async throws -> Data? {
            try await consumer.buffer.next()
        }

        /// Stops the transfer at once, closing its connection, however many copies of the stream remain: for
        /// readers that give up on the body (a line or event over its limit).
        package func terminate() {
            consumer.buffer.terminate()
        }
    }

    /// Ends the transfer when the last copy of the stream and its iterator are dropped before the body's end.
    final class Consumer: Sendable {
        let buffer: ResponseBodyBuffer
        init(buffer: ResponseBodyBuffer) { self.buffer = buffer }
        deinit { buffer.terminate() }
    }

    /// The producing side of a ``ResponseBodyStream``, used by transports.
    ///
    /// ```swift
    /// let more = continuation.yield(chunk)
    /// ```
    public struct Continuation: Sendable {
        let buffer: ResponseBodyBuffer

        /// Appends a chunk for the consumer.
        ///
        /// ```swift
        /// if !continuation.yield(chunk) { task.suspend() }
        /// ```
        /// - Parameter chunk: The bytes; an empty chunk is ignored.
        /// - Returns: `false` when the buffer is full and the producer should pause until ``onDemand`` runs.
        @discardableResult
        public func yield(_ chunk: Data) -> Bool {
            buffer.append(chunk)
        }

        /// Ends the body, successfully or with an error (any error is reported as a ``RequestError``).
        ///
        /// ```swift
        /// continuation.finish(throwing: RequestError.transport(URLError(.networkConnectionLost)))
        /// ```
        public func finish(throwing error: (any Error)? = nil) {
            buffer.finish(error.map(RequestError.wrapping))
        }

        /// Ends the body as ``finish(throwing:)`` does, with the transport's attempt as it ended
        /// (``StreamingResponse/metrics``): recorded before the consumer can see the end; nil leaves the metrics empty.
        package func finish(throwing error: (any Error)? = nil, attempt: RequestMetrics.Attempt?) {
            if let attempt { buffer.completedAttempt = attempt }
            finish(throwing: error)
        }

        /// Runs when the consumer has drained a full buffer to below half: the producer may read again.
        ///
        /// ```swift
        /// continuation.onDemand = { task.resume() }
        /// ```
        public var onDemand: (@Sendable () -> Void)? {
            get { buffer.handlers.demand }
            nonmutating set { buffer.setDemandHandler(newValue) }
        }

        /// Runs once when the consumer stops before the end (cancelled or dropped): close the connection.
        ///
        /// ```swift
        /// continuation.onTermination = { task.cancel() }
        /// ```
        public var onTermination: (@Sendable () -> Void)? {
            get { buffer.handlers.termination }
            nonmutating set { buffer.setTerminationHandler(newValue) }
        }

        /// Whether the consumer has stopped reading, so producing more is pointless.
        public var isTerminated: Bool { buffer.isTerminated }
    }
}

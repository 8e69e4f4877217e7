import Foundation
import RequestKitSockets

/// The reading side of an HTTP/1.1 connection, with no socket of its own: what is read goes into its buffer, and it
/// says what those bytes come to for the connection's machine (an interim head, the final head, a body complete, a
/// streamed body's consumer full) or that more are needed. A buffered response's head and body collect here; a
/// streamed body goes through to its ``HTTP1BodyPump``.
///
/// ```swift
/// var reader = HTTP1ResponseReader(capacity: 64 * 1024)
/// _ = try reader.fill(from: stream)
/// if case .finalHead(let head) = try reader.nextHead(limits: ResponseHead.Limits()) {
///     try reader.expectBody(of: head, framing: head.framing(isHeadRequest: false), limits: .init(), bodyLimit: 1 << 20)
/// }
/// if case .bodyCompleted = try reader.decodeBody() { print(reader.takeResponse()?.body.count ?? 0) }
/// ```
struct HTTP1ResponseReader: ~Copyable {
    /// What the bytes read so far come to.
    enum Event: Equatable {
        /// An interim (1xx) head, consumed.
        case interimHead
        /// The final head, consumed; its body follows.
        case finalHead(ResponseHead)
        /// The body is whole.
        case bodyCompleted(HTTP1ConnectionStateMachine.CompletedBody)
        /// A streamed body's consumer has all it takes for now.
        case consumerFull
        /// Nothing more without more bytes.
        case needsBytes
    }

    /// What an idle connection's socket says.
    enum IdleCheck: Equatable {
        /// Nothing to read, or only bytes of the stream's own (a TLS session ticket): it can carry a request.
        case usable
        /// Application bytes nobody asked for.
        case applicationData
        /// The stream ended (or failed).
        case ended
    }

    private var buffer: HTTP1ReadBuffer
    /// The final head of a buffered response, once parsed.
    private var head: ResponseHead?
    /// The buffered body's decoder, once the head is parsed.
    private var decoder: HTTP1BodyDecoder?
    /// The buffered body decoded so far.
    private var body = Data()
    /// The most body bytes a buffered response may have.
    private var bodyLimit = Int.max

    /// A reader with a buffer of `capacity` bytes, which bounds a response head.
    init(capacity: Int) {
        buffer = HTTP1ReadBuffer(capacity: capacity)
    }

    /// Whether bytes beyond what was taken wait in the buffer.
    var hasUnread: Bool { buffer.hasUnread }

    /// Whether the buffer is full of bytes not taken yet.
    var isFull: Bool { buffer.isFull }

    /// Whether the buffered body being read ends with the connection's close, or `pump`'s when it streams.
    func isDelimitedByClose(streamingTo pump: HTTP1BodyPump?) -> Bool {
        pump?.decoder.isDelimitedByClose ?? decoder?.isDelimitedByClose ?? false
    }

    /// Starts a new response: nothing of the last one is kept.
    mutating func startResponse() {
        buffer.reset()
        head = nil
        decoder = nil
        body = Data()
    }

    /// Reads what `stream` has into the buffer.
    mutating func fill(from stream: any ByteStream) throws -> HTTP1ReadBuffer.Fill {
        try buffer.fill(from: stream)
    }

    /// What an idle connection's `stream` says, reading it when it has bytes (or `knownReadable`).
    mutating func checkIdle(_ stream: any ByteStream, knownReadable: Bool) -> IdleCheck {
        guard knownReadable || stream.hasBufferedBytes || stream.isReadableNow else { return .usable }
        buffer.reset()
        switch try? buffer.fill(from: stream) {
        case .wouldBlock?: return .usable
        case .bytes?: return .applicationData
        case .end?, nil: return .ended
        }
    }

    /// Parses the next response head from the buffer, within `limits`.
    mutating func nextHead(limits: ResponseHead.Limits) throws -> Event {
        guard buffer.hasUnread, let (head, length) = try ResponseHead.parse(buffer.unread, limits: limits) else {
            return .needsBytes
        }
        buffer.consume(length)
        return head.isInformational ? .interimHead : .finalHead(head)
    }

    /// Collects the body of `head`, framed as `framing`, within `limits` and at most `bodyLimit` bytes. A body
    /// announced over the limit fails before any of it is read.
    mutating func expectBody(
        of head: ResponseHead, framing: ResponseHead.Framing, limits: HTTP1BodyDecoder.Limits, bodyLimit: Int
    ) throws {
        if case .length(let count) = framing {
            if count > bodyLimit { throw ResponseTooLarge(head: head, isRatio: false, limit: bodyLimit) }
            body.reserveCapacity(min(count, 1 << 24))
        }
        var limits = limits
        limits.maxBodyBytes = bodyLimit
        self.head = head
        self.bodyLimit = bodyLimit
        decoder = HTTP1BodyDecoder(framing: framing, limits: limits)
    }

    /// Decodes what the buffer holds of a buffered body.
    mutating func decodeBody() throws -> Event {
        guard var decoder, let head else { throw HTTP1ParseError.truncatedHead }
        defer { self.decoder = decoder }
        if !decoder.isComplete, buffer.hasUnread {
            do {
                buffer.consume(try decoder.decode(buffer.unread, into: &body))
            } catch {
                guard error == .bodyTooLarge else { throw error }
                throw ResponseTooLarge(head: head, isRatio: false, limit: bodyLimit)
            }
        }
        guard decoder.isComplete else { return .needsBytes }
        return .bodyCompleted(.init(wasDelimitedByClose: decoder.endsWithClose, hasExtraBytes: buffer.hasUnread))
    }

    /// Hands what the buffer holds of a streamed body to `pump`'s consumer. Fails when the consumer went away.
    mutating func deliver(to pump: HTTP1BodyPump) throws -> Event {
        if pump.continuation.isTerminated { throw CancellationError() }
        var isFull = false
        if buffer.hasUnread {
            let delivered = try pump.deliver(buffer.unread)
            buffer.consume(delivered.taken)
            isFull = delivered.isFull
        }
        if pump.decoder.isComplete {
            try pump.contentDecoder?.finish()
            return .bodyCompleted(
                .init(wasDelimitedByClose: pump.decoder.endsWithClose, hasExtraBytes: buffer.hasUnread))
        }
        return isFull ? .consumerFull : .needsBytes
    }

    /// The body being read ends here, with the connection's close: `pump`'s when it streams, else the buffered one.
    mutating func finishAtEndOfStream(streamingTo pump: HTTP1BodyPump?) throws {
        if let pump {
            try pump.decoder.finishAtEndOfStream()
        } else {
            try decoder?.finishAtEndOfStream()
        }
    }

    /// The buffered response, once its head is parsed, handed over: the reader keeps nothing of it.
    mutating func takeResponse() -> (head: ResponseHead, body: Data)? {
        guard let head else { return nil }
        let response = (head: head, body: body)
        self.head = nil
        decoder = nil
        body = Data()
        return response
    }
}

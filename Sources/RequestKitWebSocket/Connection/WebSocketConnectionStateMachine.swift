import Foundation

/// The life of one WebSocket connection after its opening handshake, with no I/O (RFC 6455 §5–7, RFC 7692 §7.2):
/// every decision the protocol makes about the frames that arrive and those sent, the closing handshake, keep-alive
/// pings and the inbound queue. Each event (bytes received, a message to send, a close asked for, a message
/// consumed, a timer fired, the input ended, a cancellation) is one mutating call; its result is the action the
/// connection carries out: write bytes, deliver a message, pause or resume reading, arm a timer, end the messages,
/// close the socket.
///
/// What arrives goes in with ``received(_:)-(UnsafeRawBufferPointer)``; ``processReceived()`` then takes it a frame
/// (or a piece of a frame) at a time, returning the next action, until it returns ``Action/none``: it needs more
/// bytes, reading is paused, or the connection ended.
///
/// ```
/// open ──(this end closes)──► closing ──(close answered)──► awaitingEnd ──(the server closes TCP)──► closed
///   │                            └──────────────(timeout, input ended)─────────────────────────────►─┤
///   ├──(the other end closes: answered)──► awaitingEnd (a client) / closed (a server)                 │
///   └──(a rule broken, a limit passed, input ended, cancelled, an unanswered ping)────────────────►──┘
/// ```
///
/// ```swift
/// var machine = WebSocketConnectionStateMachine(role: .client, configuration: .init(), compression: nil)
/// machine.opened()                           // .none (no keep-alive pings)
/// machine.received(Data([0x81, 0x02, 0x68, 0x69]))
/// machine.processReceived()                  // .deliver(.text("hi"))
/// machine.processReceived()                  // .none: more bytes are needed
/// try machine.send(.text("hello"))           // .write(a masked text frame)
/// ```
///
/// It holds the zlib streams of permessage-deflate, which are references: a copy of a machine shares them, so only
/// one copy is used.
package struct WebSocketConnectionStateMachine {
    /// Where the connection is.
    package enum State: Sendable, Hashable {
        /// Messages go both ways.
        case open
        /// This end sent a close frame and waits for the other's; messages still arrive, none is sent.
        case closing
        /// The messages have ended (the closing handshake is done); a client waits for the server to close TCP.
        case awaitingEnd
        /// The connection is over.
        case closed
    }

    /// What to do after an event.
    package enum Action: Sendable, Hashable {
        /// Nothing now: wait for bytes, a timer or the next event.
        case none
        /// Write these bytes (whole frames).
        case write(Data)
        /// Hand this whole message to the consumer.
        case deliver(WebSocketMessage)
        /// Stop reading the socket: the consumer's queue is full.
        case pauseReading
        /// Read the socket again, and process what is buffered: the consumer caught up.
        case resumeReading
        /// Arm the keep-alive timer to fire after this long.
        case schedulePing(after: Duration)
        /// Write this ping, and arm the keep-alive timer to check for its pong after this long.
        case sendPing(Data, checkAfter: Duration)
        /// Write this close frame (this end closes) and arm the close timer: the other end has this long to answer.
        case sendClose(Data, timeout: Duration)
        /// The other end closed: write this answer, end the consumer's messages with `ending`, and arm the close
        /// timer for the server to close TCP.
        case replyToClose(Data, ending: WebSocketEnding, timeout: Duration)
        /// The closing handshake is done: end the consumer's messages with `ending` (the close timer stays armed
        /// for the server to close TCP).
        case endMessages(WebSocketEnding)
        /// Write `writingFirst` if any (a close frame), then close the socket; end the consumer's messages with
        /// `ending` unless they have ended already (nil).
        case close(writingFirst: Data?, ending: WebSocketEnding?)
    }

    /// The end this machine serves: it decides masking, and who closes TCP (the server).
    package let role: WebSocketRole
    /// The limits and behaviour.
    package let configuration: WebSocket.Configuration
    /// The permessage-deflate parameters agreed, if any.
    package let compression: PerMessageDeflateParameters?
    /// Where the connection is.
    package internal(set) var state = State.open

    var decoder: WebSocketFrameDecoder
    /// Where masking keys come from: the system's CSPRNG outside tests.
    var maskingKeys: any RandomNumberGenerator
    /// The message being received, until its last frame.
    var message: InboundMessage?
    /// Whether the data frame being read is the last of its message.
    var isFinalFrame = false
    /// Messages delivered and not consumed yet, and their bytes.
    private(set) var queuedMessages = 0
    private(set) var queuedBytes = 0
    /// Whether reading is paused for the consumer: the shell reads nothing more until ``Action/resumeReading``.
    package private(set) var isReadingPaused = false
    /// The input ended while reading was paused with bytes not worked through yet: the end comes once they are.
    var inputEndsAfterBuffered = false
    /// The payload of the keep-alive ping sent and not answered yet.
    var unansweredPing: Data?
    private var pingsSent: UInt64 = 0
    /// The zlib streams, made when the first message needs one.
    var deflater: WebSocketDeflater?
    var inflater: WebSocketInflater?

    /// A machine for an open connection.
    ///
    /// - Parameters:
    ///   - role: The end it serves.
    ///   - configuration: The limits and behaviour.
    ///   - compression: The permessage-deflate parameters the handshake agreed, if any.
    ///   - maskingKeys: Where a client's masking keys come from; the system's CSPRNG unless a test needs known keys.
    package init(
        role: WebSocketRole, configuration: WebSocket.Configuration, compression: PerMessageDeflateParameters?,
        maskingKeys: any RandomNumberGenerator = SystemRandomNumberGenerator()
    ) {
        self.role = role
        self.configuration = configuration
        self.compression = compression
        self.maskingKeys = maskingKeys
        decoder = WebSocketFrameDecoder(
            role: role, maxFrameBytes: configuration.maxFrameBytes, allowsCompressedMessages: compression != nil)
    }

    /// A message being received.
    struct InboundMessage {
        var isText: Bool
        var isCompressed: Bool
        var payload = Data()
        var compressedCount = 0
        var utf8 = WebSocketUTF8Validator()
    }

    // MARK: Life

    /// The connection is open (the handshake is done): keep-alive pings start, when configured.
    package mutating func opened() -> Action {
        guard state == .open, let interval = configuration.pingInterval else { return .none }
        return .schedulePing(after: interval)
    }

    /// The keep-alive timer fired: a ping goes out, or the last one went unanswered and the connection is taken for
    /// dead. While reading is paused for the consumer, pongs cannot be read, so the check waits.
    package mutating func pingTimerFired() -> Action {
        guard state == .open, let interval = configuration.pingInterval else { return .none }
        if unansweredPing != nil {
            if isReadingPaused { return .schedulePing(after: interval) }
            return end(
                closingWith: .goingAway, reason: "keep-alive ping timeout",
                ending: .failure(
                    .pingTimeout, "\(role.peer) did not answer a keep-alive ping within \(interval)", kind: .timedOut))
        }
        pingsSent += 1
        var payload = Data(count: 8)
        for index in 0..<8 { payload[index] = UInt8(truncatingIfNeeded: pingsSent >> UInt64(56 - 8 * index)) }
        unansweredPing = payload
        return .sendPing(frame(.ping, payload), checkAfter: interval)
    }

    /// The close timer fired: the other end did not answer this end's close in time, or (a client) the server did
    /// not close TCP after the closing handshake.
    package mutating func closeTimerFired() -> Action {
        switch state {
        case .closing:
            state = .closed
            return .close(
                writingFirst: nil,
                ending: .failure(
                    .closeTimeout, "\(role.peer) did not answer the close frame within \(configuration.closeTimeout)",
                    kind: .timedOut))
        case .awaitingEnd:
            state = .closed
            return .close(writingFirst: nil, ending: nil)
        case .open, .closed:
            return .none
        }
    }

    /// The input ended (the other end closed TCP): after the closing handshake that is the end; before it, the
    /// connection was lost (1006, abnormal closure). When reading is paused with bytes not worked through, those
    /// come first: the end is ``processReceived()``'s once they are (they may hold the close frame).
    package mutating func inputEnded() -> Action {
        if isReadingPaused, decoder.bufferedCount > 0, state == .open || state == .closing {
            inputEndsAfterBuffered = true
            return .none
        }
        return endOfInput()
    }

    /// The input's end, once every byte read before it was worked through.
    mutating func endOfInput() -> Action {
        inputEndsAfterBuffered = false
        switch state {
        case .open, .closing:
            state = .closed
            let inMessage = message == nil ? "" : " in the middle of a message"
            return .close(
                writingFirst: nil,
                ending: .failure(
                    .connectionLost, "\(role.peer) closed the connection without a closing handshake\(inMessage)",
                    closeCode: .abnormalClosure))
        case .awaitingEnd:
            state = .closed
            return .close(writingFirst: nil, ending: nil)
        case .closed:
            return .none
        }
    }

    /// Reading or writing the byte stream failed.
    package mutating func streamFailed() -> Action {
        switch state {
        case .open, .closing:
            state = .closed
            return .close(writingFirst: nil, ending: .streamFailed)
        case .awaitingEnd:
            state = .closed
            return .close(writingFirst: nil, ending: nil)
        case .closed:
            return .none
        }
    }

    /// The consumer went away: the connection closes now, telling the other end it is going away.
    package mutating func cancelled() -> Action {
        switch state {
        case .open:
            return end(closingWith: .goingAway, reason: "", ending: .cancelled)
        case .closing:
            state = .closed
            return .close(writingFirst: nil, ending: .cancelled)
        case .awaitingEnd:
            state = .closed
            return .close(writingFirst: nil, ending: nil)
        case .closed:
            return .none
        }
    }

    /// The consumer took a delivered message of `byteCount` bytes off the queue: reading resumes once the queue is
    /// down to half its bounds.
    package mutating func messageConsumed(byteCount: Int) -> Action {
        assert(queuedMessages > 0, "a message was consumed that was never delivered")
        queuedMessages = max(0, queuedMessages - 1)
        queuedBytes = max(0, queuedBytes - byteCount)
        guard isReadingPaused, queuedMessages <= configuration.maxQueuedMessages / 2,
            queuedBytes <= configuration.maxQueuedBytes / 2
        else { return .none }
        isReadingPaused = false
        return state == .open || state == .closing ? .resumeReading : .none
    }

    /// Whether the consumer's queue is at one of its bounds.
    var isQueueFull: Bool {
        queuedMessages >= configuration.maxQueuedMessages || queuedBytes >= configuration.maxQueuedBytes
    }

    /// Counts a message handed to the consumer.
    mutating func queued(_ message: WebSocketMessage) -> Action {
        queuedMessages += 1
        queuedBytes += message.byteCount
        return .deliver(message)
    }

    /// Pauses reading: the queue is full.
    mutating func pauseReading() -> Action {
        isReadingPaused = true
        return .pauseReading
    }

    /// Ends the connection now: a close frame with `code` and `reason` (unless this end sent its close already,
    /// after which it sends nothing more), then the socket closes.
    mutating func end(closingWith code: WebSocketCloseCode, reason: String, ending: WebSocketEnding) -> Action {
        let frame = state == .open ? closeFrame(code, reason: reason) : nil
        state = .closed
        message = nil
        return .close(writingFirst: frame, ending: ending)
    }
}

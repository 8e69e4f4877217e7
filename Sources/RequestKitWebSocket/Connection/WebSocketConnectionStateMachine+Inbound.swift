import Foundation
import RequestKitModel

extension WebSocketConnectionStateMachine {
    /// Bytes read from the connection; ``processReceived()`` works through them.
    package mutating func received(_ bytes: UnsafeRawBufferPointer) {
        guard state == .open || state == .closing else { return }
        decoder.append(bytes)
    }

    /// Bytes read from the connection; ``processReceived()`` works through them.
    package mutating func received(_ bytes: some Sequence<UInt8>) {
        guard state == .open || state == .closing else { return }
        decoder.append(bytes)
    }

    /// Takes what was received a frame, or a piece of a frame, at a time, and returns the first action it leads
    /// to; ``Action/none`` once it needs more bytes, reading is paused, or the messages have ended. Call it until it
    /// returns ``Action/none``. When the input ended while reading was paused, its end follows the last byte.
    package mutating func processReceived() -> Action {
        while state == .open || state == .closing {
            if isReadingPaused { return .none }
            if isQueueFull { return pauseReading() }
            let piece: WebSocketFrameDecoder.Piece?
            do {
                piece = try decoder.next()
            } catch {
                return fail(error)
            }
            guard let piece else { return inputEndsAfterBuffered ? endOfInput() : .none }
            let action: Action
            switch piece {
            case .control(let head, let payload): action = control(head.opcode, payload)
            case .dataHead(let head): action = dataFrameBegins(head)
            case .payload(let bytes, let isFrameEnd): action = payloadArrived(bytes, isFrameEnd: isFrameEnd)
            }
            if action != .none { return action }
        }
        // A close frame among them leaves the machine waiting for the input's end, which came already.
        return inputEndsAfterBuffered ? endOfInput() : .none
    }

    /// Fails the connection for a rule broken: a close frame with the rule's code and what was broken, then the
    /// socket closes.
    mutating func fail(_ violation: WebSocketViolation) -> Action {
        end(
            closingWith: violation.closeCode, reason: Self.closeReason(violation.message),
            ending: .failed(violation.record, kind: .webSocket))
    }

    /// `text` cut to the 123 bytes a close reason holds, at a character's end.
    static func closeReason(_ text: String) -> String {
        var reason = ""
        var count = 0
        for scalar in text.unicodeScalars {
            count += String(scalar).utf8.count
            if count > 123 { break }
            reason.unicodeScalars.append(scalar)
        }
        return reason
    }

    // MARK: Data frames

    private mutating func dataFrameBegins(_ head: WebSocketFrameHead) -> Action {
        let peer = role.peer
        switch head.opcode {
        case .continuation:
            guard message != nil else {
                return fail(
                    .protocolViolation("\(peer) sent a continuation frame with no fragmented message to continue"))
            }
        case .text, .binary:
            guard message == nil else {
                return fail(
                    .protocolViolation(
                        "\(peer) began a new \(WebSocketFrameDecoder.name(of: head.opcode)) message before the fragmented one in progress ended"
                    ))
            }
            message = InboundMessage(isText: head.opcode == .text, isCompressed: head.isCompressed)
        case .close, .ping, .pong:
            return fail(.protocolViolation("\(peer) sent a control frame where a data frame was read"))
        }
        isFinalFrame = head.isFinal
        if let message, !message.isCompressed,
            head.payloadLength > configuration.maxMessageBytes - message.payload.count
        {
            return fail(.tooLarge(messageTooLarge))
        }
        return .none
    }

    private var messageTooLarge: String {
        "\(role.peer) sent a message of more than \(configuration.maxMessageBytes) bytes, the limit"
    }

    private mutating func payloadArrived(_ bytes: Data, isFrameEnd: Bool) -> Action {
        guard var message else {
            return fail(.protocolViolation("\(role.peer) sent payload bytes outside a message"))
        }
        self.message = nil
        let start = message.payload.count
        if message.isCompressed {
            message.compressedCount += bytes.count
            if let violation = inflate(bytes, into: &message) { return fail(violation) }
        } else {
            message.payload.append(bytes)
        }
        if message.isText, let violation = validateText(&message, from: start) { return fail(violation) }
        guard isFrameEnd, isFinalFrame else {
            self.message = message
            return .none
        }
        if message.isCompressed {
            let tailStart = message.payload.count
            if let violation = inflate(nil, into: &message) { return fail(violation) }
            if message.isText, let violation = validateText(&message, from: tailStart) { return fail(violation) }
        }
        if message.isText {
            guard message.utf8.isAtBoundary else {
                return fail(.invalidUTF8("\(role.peer) sent a text message that ends inside a UTF-8 sequence"))
            }
            return queued(.text(String(decoding: message.payload, as: UTF8.self)))
        }
        return queued(.binary(message.payload))
    }

    private func validateText(_ message: inout InboundMessage, from start: Int) -> WebSocketViolation? {
        guard start < message.payload.count else { return nil }
        let isValid = message.payload.withUnsafeBytes { bytes in
            message.utf8.validate(UnsafeRawBufferPointer(rebasing: bytes[start...]))
        }
        return isValid ? nil : .invalidUTF8("\(role.peer) sent a text message that is not UTF-8")
    }

    /// Inflates the next compressed bytes of `message`, or its end (`bytes` nil), within the message limit and the
    /// decompression ratio.
    private mutating func inflate(_ bytes: Data?, into message: inout InboundMessage) -> WebSocketViolation? {
        if inflater == nil {
            let compression = compression ?? PerMessageDeflateParameters()
            let sender: WebSocketRole = role == .client ? .server : .client
            inflater = WebSocketInflater(
                maxWindowBits: compression.maxWindowBits(of: sender),
                noContextTakeover: compression.noContextTakeover(of: sender))
        }
        guard let inflater else { return .invalidCompressedData("zlib could not start inflating") }
        let (product, overflow) = message.compressedCount.multipliedReportingOverflow(
            by: configuration.maxDecompressionRatio)
        let ratioBound = overflow ? Int.max : max(ResponseLimits.decompressionAllowance, product)
        let limit = min(configuration.maxMessageBytes, ratioBound)
        let outcome =
            if let bytes {
                bytes.withUnsafeBytes { inflater.inflate($0, into: &message.payload, limit: limit) }
            } else {
                inflater.finishMessage(into: &message.payload, limit: limit)
            }
        switch outcome {
        case .inflated:
            return nil
        case .overLimit where ratioBound < configuration.maxMessageBytes:
            return .tooLarge(
                "a compressed message from \(role.peer) expands more than \(configuration.maxDecompressionRatio) times")
        case .overLimit:
            return .tooLarge(messageTooLarge)
        case .corrupt:
            return .invalidCompressedData("\(role.peer) sent a compressed message that zlib cannot inflate")
        }
    }

    // MARK: Control frames

    private mutating func control(_ opcode: WebSocketOpcode, _ payload: Data) -> Action {
        switch opcode {
        case .ping:
            // After this end's close, nothing but that close goes out.
            return state == .open ? .write(frame(.pong, payload)) : .none
        case .pong:
            if payload == unansweredPing { unansweredPing = nil }
            return .none
        case .close:
            return closeReceived(payload)
        case .continuation, .text, .binary:
            return fail(.protocolViolation("\(role.peer) sent a data frame where a control frame was read"))
        }
    }

    private mutating func closeReceived(_ payload: Data) -> Action {
        let peer = role.peer
        var code = WebSocketCloseCode.noStatusReceived
        var reason = ""
        if payload.count == 1 {
            return fail(.protocolViolation("\(peer) sent a close frame of one byte; a close code takes two"))
        }
        if payload.count >= 2 {
            let number = UInt16(payload[payload.startIndex]) << 8 | UInt16(payload[payload.startIndex + 1])
            guard let valid = WebSocketCloseCode(number) else {
                return fail(
                    .protocolViolation("\(peer) closed with the code \(number), which no close frame may carry"))
            }
            code = valid
            var validator = WebSocketUTF8Validator()
            let reasonBytes = payload.dropFirst(2)
            guard validator.validate(reasonBytes), validator.isAtBoundary else {
                return fail(.invalidUTF8("\(peer) sent a close reason that is not UTF-8"))
            }
            reason = String(decoding: reasonBytes, as: UTF8.self)
        }
        switch state {
        case .open:
            message = nil
            let ending = peerEnding(code, reason: reason)
            let answer = frame(
                .close, code == .noStatusReceived ? Data() : WebSocketFrameEncoder.closePayload(code: code, reason: ""))
            if role == .server {
                state = .closed
                return .close(writingFirst: answer, ending: ending)
            }
            state = .awaitingEnd
            return .replyToClose(answer, ending: ending, timeout: configuration.closeTimeout)
        case .closing:
            // The answer to this end's close: the closing handshake is done, whatever code it carries.
            let ending = WebSocketEnding.closed(code, reason: reason)
            if role == .server {
                state = .closed
                return .close(writingFirst: nil, ending: ending)
            }
            state = .awaitingEnd
            return .endMessages(ending)
        case .awaitingEnd, .closed:
            return .none
        }
    }

    /// How the other end's close ends the messages: quietly for normal closure, going away or no code; as a
    /// failure carrying the code and reason for any other.
    private func peerEnding(_ code: WebSocketCloseCode, reason: String) -> WebSocketEnding {
        switch code {
        case .normalClosure, .goingAway, .noStatusReceived:
            return .closed(code, reason: reason)
        default:
            let said = reason.isEmpty ? "" : ": \"\(reason)\""
            return .failure(
                .closedByServer, "\(role.peer) closed the connection with \(code)\(said)", closeCode: code,
                closeReason: reason)
        }
    }
}

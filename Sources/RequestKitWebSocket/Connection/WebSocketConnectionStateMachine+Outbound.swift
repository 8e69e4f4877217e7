import Foundation
import RequestKitModel

extension WebSocketConnectionStateMachine {
    /// A message to send: its frames, compressed when permessage-deflate was agreed, split into frames of at most
    /// ``WebSocket/Configuration/outgoingFrameBytes``, masked by a client.
    ///
    /// - Throws: ``RequestError`` (``RequestError/WebSocketFailure/closed``) once the connection is closing.
    package mutating func send(_ message: WebSocketMessage) throws(RequestError) -> Action {
        guard state == .open else {
            throw .webSocket(.closed, "the WebSocket connection is closing or closed; no message can be sent")
        }
        let opcode: WebSocketOpcode
        var payload: Data
        switch message {
        case .text(let text):
            opcode = .text
            payload = Data(text.utf8)
        case .binary(let data):
            opcode = .binary
            payload = data
        }
        var isCompressed = false
        if let compression {
            if deflater == nil {
                deflater = WebSocketDeflater(
                    maxWindowBits: compression.maxWindowBits(of: role),
                    noContextTakeover: compression.noContextTakeover(of: role))
            }
            // A message zlib fails on goes out as it is: compression is chosen message by message.
            if let compressed = payload.withUnsafeBytes({ deflater?.compress($0) }) {
                payload = compressed
                isCompressed = true
            }
        }
        let frameSize = max(1, configuration.outgoingFrameBytes)
        var output = Data()
        output.reserveCapacity(payload.count + 14 * (payload.count / frameSize + 1))
        var offset = payload.startIndex
        repeat {
            let end = min(payload.endIndex, offset + frameSize)
            let isFirst = offset == payload.startIndex
            let head = WebSocketFrameHead(
                isFinal: end == payload.endIndex, isCompressed: isCompressed && isFirst,
                opcode: isFirst ? opcode : .continuation, payloadLength: end - offset, maskingKey: nextMaskingKey())
            WebSocketFrameEncoder.append(head, payload: payload[offset..<end], to: &output)
            offset = end
        } while offset < payload.endIndex
        return .write(output)
    }

    /// This end closes: a close frame with `code` and `reason`, answered by the other end within
    /// ``WebSocket/Configuration/closeTimeout``. Nothing more can be sent; messages still arrive until the answer.
    ///
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` for a code no close frame may carry or
    ///   a reason over 123 bytes of UTF-8.
    package mutating func close(_ code: WebSocketCloseCode, reason: String) throws(RequestError) -> Action {
        guard code.canBeSent else {
            throw .invalidRequest([RequestProblem(.invalidComponent, "the close code \(code) is never sent")])
        }
        let count = reason.utf8.count
        guard count <= 123 else {
            throw .invalidRequest([
                RequestProblem(.invalidComponent, "a close reason holds at most 123 bytes of UTF-8, not \(count)")
            ])
        }
        guard state == .open else { return .none }
        state = .closing
        return .sendClose(closeFrame(code, reason: reason), timeout: configuration.closeTimeout)
    }

    /// A close frame.
    mutating func closeFrame(_ code: WebSocketCloseCode, reason: String) -> Data {
        frame(.close, WebSocketFrameEncoder.closePayload(code: code, reason: reason))
    }

    /// A whole unfragmented frame, masked by a client.
    mutating func frame(_ opcode: WebSocketOpcode, _ payload: Data) -> Data {
        var output = Data()
        let head = WebSocketFrameHead(opcode: opcode, payloadLength: payload.count, maskingKey: nextMaskingKey())
        WebSocketFrameEncoder.append(head, payload: payload, to: &output)
        return output
    }

    /// A fresh key for a client's frame; nil for a server's.
    private mutating func nextMaskingKey() -> WebSocketMaskingKey? {
        role == .client ? WebSocketMaskingKey.random(using: &maskingKeys) : nil
    }
}

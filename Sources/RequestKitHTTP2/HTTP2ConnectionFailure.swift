/// Why an HTTP/2 connection ended before its streams did.
///
/// ```swift
/// let failure = HTTP2ConnectionFailure.protocolViolation(.frameSizeError, "DATA: frame too large")
/// print(failure)  // the server broke the HTTP/2 protocol (FRAME_SIZE_ERROR): DATA: frame too large
/// ```
package enum HTTP2ConnectionFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server broke the protocol; the connection sent `GOAWAY` with `code` and closed. `detail` says what was
    /// wrong.
    case protocolViolation(HTTP2ErrorCode, String)
    /// The server sent control frames (PING, SETTINGS, empty or `CONTINUATION` frames) faster than they can be
    /// answered, without limit; the connection closed.
    case flooded(String)
    /// The server closed the connection with `GOAWAY` and this code, which is not `NO_ERROR`.
    case goAway(HTTP2ErrorCode, String)
    /// The connection's byte stream ended (the peer closed it, or reading failed) while streams were open.
    case closed

    package var description: String {
        switch self {
        case .protocolViolation(let code, let detail): "the server broke the HTTP/2 protocol (\(code)): \(detail)"
        case .flooded(let detail): "the server flooded the connection with control frames: \(detail)"
        case .goAway(let code, let detail):
            "the server closed the connection with GOAWAY (\(code))" + (detail.isEmpty ? "" : ": \(detail)")
        case .closed: "the connection closed"
        }
    }
}

/// An HTTP/2 error code (RFC 9113, section 7), as sent in `RST_STREAM` and `GOAWAY` frames: an open set, since a peer
/// may send a code this list does not name.
///
/// ```swift
/// let code = HTTP2ErrorCode(rawValue: 7)
/// print(code == .refusedStream, code)  // true REFUSED_STREAM
/// ```
package struct HTTP2ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt32

    package init(rawValue: UInt32) { self.rawValue = rawValue }

    package static let noError = HTTP2ErrorCode(rawValue: 0x0)
    package static let protocolError = HTTP2ErrorCode(rawValue: 0x1)
    package static let internalError = HTTP2ErrorCode(rawValue: 0x2)
    package static let flowControlError = HTTP2ErrorCode(rawValue: 0x3)
    package static let settingsTimeout = HTTP2ErrorCode(rawValue: 0x4)
    package static let streamClosed = HTTP2ErrorCode(rawValue: 0x5)
    package static let frameSizeError = HTTP2ErrorCode(rawValue: 0x6)
    /// The stream was refused before any of it was processed: the request may be sent again.
    package static let refusedStream = HTTP2ErrorCode(rawValue: 0x7)
    package static let cancel = HTTP2ErrorCode(rawValue: 0x8)
    package static let compressionError = HTTP2ErrorCode(rawValue: 0x9)
    package static let connectError = HTTP2ErrorCode(rawValue: 0xa)
    package static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 0xb)
    package static let inadequateSecurity = HTTP2ErrorCode(rawValue: 0xc)
    package static let http11Required = HTTP2ErrorCode(rawValue: 0xd)

    private static let names = [
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
        "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
        "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    ]

    /// The code's name in RFC 9113, or its number in hexadecimal when it has none.
    package var description: String {
        rawValue < Self.names.count ? Self.names[Int(rawValue)] : "0x" + String(rawValue, radix: 16)
    }
}

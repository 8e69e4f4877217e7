#if canImport(CNghttp2)
/// HTTP/2 frames written byte by byte (RFC 9113, section 4.1), for servers that break the protocol on purpose.
///
/// ```swift
/// let bytes = HTTP2FrameBytes.settingsFrame([(0x4, 0)])  // SETTINGS_INITIAL_WINDOW_SIZE 0
///     + HTTP2FrameBytes.headersFrame(stream: 1, block: HTTP2FrameBytes.status200, endStream: true)
/// print(HTTP2FrameBytes.goAwayCodes(in: client.outgoing()))  // [1] after a PROTOCOL_ERROR
/// ```
package enum HTTP2FrameBytes {
    package static let data: UInt8 = 0x0
    package static let headers: UInt8 = 0x1
    package static let rstStream: UInt8 = 0x3
    package static let settings: UInt8 = 0x4
    package static let ping: UInt8 = 0x6
    package static let goAway: UInt8 = 0x7
    package static let continuation: UInt8 = 0x9
    package static let endStream: UInt8 = 0x1
    package static let endHeaders: UInt8 = 0x4

    /// A frame: its 9-byte header, then `payload`.
    package static func frame(_ type: UInt8, flags: UInt8 = 0, stream: UInt32 = 0, payload: [UInt8] = []) -> [UInt8] {
        let length = UInt32(payload.count)
        return [
            UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8),
            UInt8(truncatingIfNeeded: length), type, flags,
        ]
            + bigEndian(stream & 0x7fff_ffff) + payload
    }

    /// A `SETTINGS` frame with `entries` (id, value): the server's preface when it is the first.
    package static func settingsFrame(_ entries: [(UInt16, UInt32)] = []) -> [UInt8] {
        frame(
            settings,
            payload: entries.flatMap {
                [UInt8(truncatingIfNeeded: $0.0 >> 8), UInt8(truncatingIfNeeded: $0.0)] + bigEndian($0.1)
            })
    }

    /// A `HEADERS` frame on `stream` carrying `block` whole.
    package static func headersFrame(stream: UInt32, block: [UInt8], endStream: Bool = false) -> [UInt8] {
        frame(headers, flags: endHeaders | (endStream ? Self.endStream : 0), stream: stream, payload: block)
    }

    /// `:status: 200`, from HPACK's static table.
    package static let status200: [UInt8] = [0x88]

    /// A field as an HPACK literal without indexing, its name and value as they are (each shorter than 127 bytes).
    package static func literal(_ name: String, _ value: String) -> [UInt8] {
        let name = Array(name.utf8)
        let value = Array(value.utf8)
        return [0x00, UInt8(name.count)] + name + [UInt8(value.count)] + value
    }

    /// The error codes of the `GOAWAY` frames among the whole frames of `bytes` (which begin at a frame's start).
    package static func goAwayCodes(in bytes: [UInt8]) -> [UInt32] {
        var codes: [UInt32] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            guard offset + 9 + length <= bytes.count else { break }
            if bytes[offset + 3] == goAway, length >= 8 {
                codes.append(bytes[(offset + 13)..<(offset + 17)].reduce(0) { $0 << 8 | UInt32($1) })
            }
            offset += 9 + length
        }
        return codes
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
            UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
        ]
    }
}
#endif

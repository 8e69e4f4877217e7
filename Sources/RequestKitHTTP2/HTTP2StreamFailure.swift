/// Why a stream ended without its whole response, when the request cannot simply be sent again.
///
/// A stream the server never processed (refused with `REFUSED_STREAM`, or above the last stream id of its `GOAWAY`)
/// is not a failure: ``HTTP2Session/Output/retry(stream:)`` reports it.
///
/// ```swift
/// if case .reset(let code) = failure { print("the server reset the stream: \(code)") }
/// ```
package enum HTTP2StreamFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server reset the stream with this code after it began processing it.
    case reset(HTTP2ErrorCode)
    /// The response's header block decoded to more than `limit` bytes (each field counted as its name, its value and
    /// 32 bytes, as `SETTINGS_MAX_HEADER_LIST_SIZE` counts them); the stream was reset.
    case headerListTooLarge(limit: Int)
    /// The connection ended while the stream was open and possibly processed: the request may have had its effect.
    case connectionLost(HTTP2ConnectionFailure)
    /// The request's body could not be read (the reason says why); the stream was reset.
    case requestBodyUnreadable(String)

    package var description: String {
        switch self {
        case .reset(let code): "the server reset the stream (\(code))"
        case .headerListTooLarge(let limit): "the response's header list is larger than \(limit) bytes"
        case .connectionLost(let failure): "the connection ended before the response did: \(failure)"
        case .requestBodyUnreadable(let reason): "the request body could not be read: \(reason)"
        }
    }
}

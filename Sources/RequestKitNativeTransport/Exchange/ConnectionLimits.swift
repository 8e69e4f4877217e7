import Foundation

/// Every parser limit ``NativeTransport`` applies to one response.
struct ConnectionLimits: Sendable {
    var head = ResponseHead.Limits()
    var body = HTTP1BodyDecoder.Limits()
}

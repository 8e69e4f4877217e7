import Foundation

/// Every parser limit ``NativeTransport`` applies to one response.
struct HTTP1Limits: Sendable {
    var head = HTTP1ResponseHead.Limits()
    var body = HTTP1BodyDecoder.Limits()
}

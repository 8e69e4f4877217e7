import Foundation

/// Every parser limit ``HTTP1Transport`` applies to one response.
struct HTTP1Limits: Sendable {
    var head = HTTP1ResponseHead.Limits()
    var body = HTTP1BodyDecoder.Limits()
}

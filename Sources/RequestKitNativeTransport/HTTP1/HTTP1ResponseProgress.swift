import Foundation

/// How far the reading of one buffered response has come on its connection.
struct HTTP1ResponseProgress: Sendable {
    /// The final response head, once parsed.
    var head: ResponseHead?
    /// The body's decoder, once the head is parsed.
    var decoder: HTTP1BodyDecoder?
    /// The body bytes decoded so far.
    var body = Data()
}

import Foundation

/// How far the reading of one response has come: carried from the awaiting task, which reads what has already
/// arrived, to the connection's thread, which waits for the rest.
struct HTTP1ResponseProgress: Sendable {
    /// The final response head, once parsed.
    var head: HTTP1ResponseHead?
    /// The body's decoder, once the head is parsed.
    var decoder: HTTP1BodyDecoder?
    /// The body bytes decoded so far.
    var body = Data()
    /// How many informational (1xx) responses came before the final one.
    var informationalCount = 0
}

import Foundation

/// What the awaiting task did with a request before handing it to the connection's thread.
enum HTTP1InlineStart<Value: Sendable>: Sendable {
    /// Nothing: the connection's thread sends the whole request.
    case none
    /// It sent the first `sent` bytes of the request and read the response as far as `progress`.
    case partial(sent: Int, progress: HTTP1ResponseProgress)
    /// It finished the whole exchange.
    case done(Value)
}

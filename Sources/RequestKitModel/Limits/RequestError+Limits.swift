import Foundation

extension RequestError.Kind {
    /// The response was larger than a ``ResponseLimits`` bound: its body, or its decompressed expansion.
    public static let responseTooLarge = Self("responseTooLarge")
}

extension RequestError {
    /// A response body over `limit` bytes.
    ///
    /// ```swift
    /// throw RequestError.responseTooLarge(limit: 1 << 20)
    /// ```
    /// - Parameters:
    ///   - limit: The limit that was passed, in bytes.
    ///   - response: The response head, when known.
    public static func responseTooLarge(limit: Int, response: Response? = nil) -> RequestError {
        RequestError(
            kind: .responseTooLarge, response: response,
            detail: "the response body is larger than the limit of \(limit) bytes")
    }

    /// A compressed body that expands more than `ratio` times.
    package static func decompressionRatioExceeded(_ ratio: Int, response: Response? = nil) -> RequestError {
        RequestError(
            kind: .responseTooLarge, response: response,
            detail: "the compressed response body expands more than \(ratio) times")
    }

    /// A stream whose consumer fell more than `limit` bytes behind, so that its spool would pass
    /// ``ResponseLimits/maxSpoolBytes``.
    package static func spoolLimitExceeded(_ limit: Int, response: Response? = nil) -> RequestError {
        RequestError(
            kind: .responseTooLarge, response: response,
            detail: "the stream's consumer fell more than the spool limit of \(limit) bytes behind")
    }

    /// A line of a body read as text that is longer than `limit` bytes (``ResponseLimits/maxLineBytes``).
    package static func lineTooLong(limit: Int, response: Response? = nil) -> RequestError {
        RequestError(
            kind: .responseTooLarge, response: response,
            detail: "a line of the response body is longer than the limit of \(limit) bytes")
    }

    /// An event of an event stream that holds more than `limit` bytes before it ends
    /// (``ResponseLimits/maxLineBytes``).
    package static func eventTooLarge(limit: Int, response: Response? = nil) -> RequestError {
        RequestError(
            kind: .responseTooLarge, response: response,
            detail: "an event of the event stream is larger than the limit of \(limit) bytes")
    }
}

import Foundation

/// Counts a response body against a byte limit as it arrives: the one place that decides when a body that reaches
/// the pipeline already decoded is too large. Collecting a stream into memory (``StreamingResponse/collect(upTo:)``
/// and the memory sink with download progress) and the pipeline's check of a transport's whole-body `send` count
/// through one of these; ``NativeTransport`` applies the same limits while it reads and decodes.
package struct ResponseBodyLimiter: Sendable {
    /// The most bytes allowed.
    package let maxBytes: Int
    /// The bytes counted so far.
    private(set) var count = 0

    /// A limiter allowing `maxBytes` bytes.
    package init(maxBytes: Int) {
        self.maxBytes = max(0, maxBytes)
    }

    /// Counts `bytes` more.
    ///
    /// - Parameters:
    ///   - bytes: How many bytes arrived.
    ///   - response: The response head, kept in the error.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/responseTooLarge`` once the limit is passed.
    package mutating func add(_ bytes: Int, response: Response? = nil) throws(RequestError) {
        let (total, overflow) = count.addingReportingOverflow(bytes)
        count = overflow ? Int.max : total
        if count > maxBytes { throw RequestError.responseTooLarge(limit: maxBytes, response: response) }
    }
}

import Foundation

/// Counts a response body against the request's ``ResponseLimits`` as it arrives: the one place that decides
/// when a body delivered already decoded is too large. Every path that collects or moves a body (the URLSession
/// registries, collecting a stream into memory, the executor's check after a custom transport) counts through
/// one of these; ``HTTP1Transport`` applies the same limits while it decodes.
struct ResponseBodyLimiter: Sendable {
    /// The most bytes allowed; nil for no limit.
    let maxBytes: Int?
    /// The limit on decoded bytes implied by the compressed length and the ratio, when the transport decodes the
    /// body itself and the server sent the compressed length.
    let maxDecodedBytes: Int?
    let ratio: Int
    /// The bytes counted so far.
    private(set) var count = 0

    /// A limiter for a body held in memory (`buffered`) or moved (`stream()`, `download(to:)`).
    ///
    /// - Parameters:
    ///   - limits: The request's limits.
    ///   - isBuffered: Whether the body is held in memory.
    ///   - decodedFrom: The response head, when the transport undid its `Content-Encoding` itself: its
    ///     `Content-Length` is then the compressed length that bounds the expansion.
    init(_ limits: ResponseLimits, isBuffered: Bool, decodedFrom head: HTTPHeaders? = nil) {
        maxBytes = isBuffered ? limits.maxBodyBytes : limits.maxStreamedBodyBytes
        ratio = limits.maxDecompressionRatio
        if let head, Self.isCompressed(head), let length = head["Content-Length"].flatMap(HTTPSyntax.contentLength) {
            maxDecodedBytes = limits.maxDecodedBytes(forCompressed: length)
        } else {
            maxDecodedBytes = nil
        }
    }

    /// Counts `bytes` more.
    ///
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/responseTooLarge`` once a limit is passed.
    mutating func add(_ bytes: Int, response: Response? = nil) throws(RequestError) {
        let (total, overflow) = count.addingReportingOverflow(bytes)
        count = overflow ? Int.max : total
        if let maxBytes, count > maxBytes { throw RequestError.responseTooLarge(limit: maxBytes, response: response) }
        if let maxDecodedBytes, count > maxDecodedBytes {
            throw RequestError.decompressionRatioExceeded(ratio, response: response)
        }
    }

    /// Whether `headers` name a content coding other than identity.
    static func isCompressed(_ headers: HTTPHeaders) -> Bool {
        guard let coding = headers["Content-Encoding"] else { return false }
        return coding.split(separator: ",").contains {
            let token = $0.trimmingCharacters(in: .whitespaces).lowercased()
            return !token.isEmpty && token != "identity"
        }
    }
}

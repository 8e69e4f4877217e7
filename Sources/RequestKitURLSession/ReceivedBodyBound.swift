import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How many (decoded) body bytes one ``URLSessionTransport`` transfer may receive, from its request's
/// ``ResponseLimits`` and its response head, and the error for passing it.
///
/// - `send` holds the body in memory: ``ResponseLimits/maxBodyBytes``.
/// - `stream` moves it on: ``ResponseLimits/maxStreamedBodyBytes``, when set.
/// - **Decompression ratio.** URLSession decodes `gzip` and `deflate` itself and reports only the decoded bytes
///   (`countOfBytesReceived` counts them too), so the bytes received on the wire are unknown while the body
///   arrives. What is known is the body's declared `Content-Length`, which is the compressed size and which the
///   session holds the wire to: a body with a `Content-Encoding` and a `Content-Length` may decode to at most
///   ``ResponseLimits/maxDecompressionRatio`` times that length (never less than the 1 MiB allowance). This
///   bounds the whole expansion, not its pace: unlike ``NativeTransport``, which compares the decoded bytes with
///   the bytes received so far, a bomb is stopped only once it passes the bound its whole length allows. A
///   compressed body without `Content-Length` (chunked) is bounded by the byte limits alone.
struct ReceivedBodyBound {
    /// The most bytes allowed.
    let maxBytes: Int
    /// Whether the decompression ratio sets ``maxBytes``, rather than a byte limit.
    let isRatio: Bool
    private let byteLimit: Int
    private let ratio: Int

    /// The bound for a body held in memory (`isWhole`) or streamed, before or after its head arrived.
    init(limits: ResponseLimits, isWhole: Bool, head: HTTPURLResponse?) {
        let byteLimit = isWhole ? limits.maxBodyBytes : (limits.maxStreamedBodyBytes ?? .max)
        let ratioBound = head.flatMap { Self.ratioBound(of: $0, ratio: limits.maxDecompressionRatio) } ?? .max
        self.byteLimit = byteLimit
        self.ratio = limits.maxDecompressionRatio
        self.isRatio = ratioBound < byteLimit
        self.maxBytes = min(byteLimit, ratioBound)
    }

    /// The ``RequestError/Kind/responseTooLarge`` error for a body past the bound, keeping `response`, the head.
    func error(response: Response?) -> RequestError {
        isRatio
            ? RequestError.decompressionRatioExceeded(ratio, response: response)
            : RequestError.responseTooLarge(limit: byteLimit, response: response)
    }

    /// The decoded bytes a compressed body of known length may grow to: its length times `ratio`, at least the
    /// allowance; nil when the body is not compressed or its length is not known.
    static func ratioBound(of head: HTTPURLResponse, ratio: Int) -> Int? {
        guard let encoding = head.value(forHTTPHeaderField: "Content-Encoding"),
            encoding.split(separator: ",").contains(where: {
                let coding = $0.trimmingCharacters(in: .whitespaces).lowercased()
                return !coding.isEmpty && coding != "identity"
            }),
            let lengthField = head.value(forHTTPHeaderField: "Content-Length"),
            let length = HTTPSyntax.contentLength(lengthField)
        else { return nil }
        let (product, overflow) = length.multipliedReportingOverflow(by: max(1, ratio))
        return max(ResponseLimits.decompressionAllowance, overflow ? .max : product)
    }
}

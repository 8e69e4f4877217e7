import Foundation
import RequestKitModel

/// A response that passed one of the request's ``ResponseLimits`` while ``NativeTransport`` read or decoded its
/// body, with the head it had, so that the caller's error keeps the status and headers.
struct ResponseTooLarge: Error, Sendable {
    /// The response head.
    let head: ResponseHead
    /// Whether the decompression ratio was passed, rather than the byte limit.
    let isRatio: Bool
    /// The byte limit, or the ratio when ``isRatio``.
    let limit: Int

    init(head: ResponseHead, isRatio: Bool, limit: Int) {
        self.head = head
        self.isRatio = isRatio
        self.limit = limit
    }

    /// The error for a parse error that means a limit was passed (``HTTP1ParseError/bodyTooLarge`` or
    /// ``HTTP1ParseError/decompressionRatioExceeded``), or nil for any other error.
    init?(_ error: any Error, head: ResponseHead, bodyLimit: Int, maxRatio: Int) {
        switch error as? HTTP1ParseError {
        case .bodyTooLarge?: (isRatio, limit) = (false, bodyLimit)
        case .decompressionRatioExceeded?: (isRatio, limit) = (true, maxRatio)
        default: return nil
        }
        self.head = head
    }

    /// The ``RequestError/Kind/responseTooLarge`` error, with the head as its response.
    func requestError(url: URL?) -> RequestError {
        let response = NativeTransport.response(head, url: url)
        return isRatio
            ? RequestError.decompressionRatioExceeded(limit, response: response)
            : RequestError.responseTooLarge(limit: limit, response: response)
    }
}

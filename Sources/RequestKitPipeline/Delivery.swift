import Foundation
import RequestKitModel

/// What an exchange delivered: the response head, with the body in `response.body` (memory sink) or still to be
/// read from `body` (consumer sink).
struct Delivery: Sendable {
    var response: Response
    var body: ResponseBodyStream?

    /// The response, moved out of the delivery, which ends: `delivery.response` copied it (retaining each of its
    /// parts) and then destroyed the delivery with the original.
    consuming func takeResponse() -> Response { response }

    /// The bytes of a response that is not passed on (a followed redirect, a retried attempt) are read, up to
    /// 64 KiB, so the connection can be reused; a longer body is dropped, which closes the connection.
    nonisolated(nonsending) func discard() async {
        guard let body else { return }
        _ = try? await StreamingResponse(head: response, body: body).collect(upTo: 64 * 1024)
    }
}

extension Result where Success == Delivery {
    /// Discards a successful delivery's body; see ``Delivery/discard()``.
    nonisolated(nonsending) func discard() async {
        if case .success(let delivery) = self { await delivery.discard() }
    }
}

import Foundation
import RequestKit

extension RecordingTransport {
    /// The recorded response of `entry`, its body whole; the recorded failure, thrown.
    func replaySend(_ entry: HAREntry, url: URL?) throws(RequestError) -> Response {
        guard let response = try entry.replayedResponse(url: url, sideFiles: sideFiles)
        else { throw entry.replayedFailure(url: url) ?? ReplayFailure.error("a recorded failure has no kind") }
        if let failure = entry.replayedFailure(url: url) { throw failure }
        return response
    }

    /// The recorded response of `entry`, its body in the recorded chunks, ending with the recorded failure if the
    /// body failed.
    func replayStream(_ entry: HAREntry, url: URL?) throws(RequestError) -> StreamingResponse {
        guard var head = try entry.replayedResponse(url: url, sideFiles: sideFiles)
        else { throw entry.replayedFailure(url: url) ?? ReplayFailure.error("a recorded failure has no kind") }
        let body = head.body
        head.body = Data()
        let (stream, continuation) = ResponseBodyStream.makeStream(bufferLimit: max(1, body.count))
        var offset = body.startIndex
        for chunk in entry.replayedChunks(bodyLength: body.count) {
            continuation.yield(body[offset..<offset + chunk.size])
            offset += chunk.size
        }
        continuation.finish(throwing: entry.replayedFailure(url: url))
        return StreamingResponse(head: head, body: stream)
    }
}

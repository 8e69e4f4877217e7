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
        var pieces: [(data: Data, time: Double)] = []
        var offset = body.startIndex
        for chunk in entry.replayedChunks(bodyLength: body.count) {
            pieces.append((body[offset..<offset + chunk.size], chunk.time))
            offset += chunk.size
        }
        let failure = entry.replayedFailure(url: url)
        guard let clock = configuration.pacing else {
            for piece in pieces { continuation.yield(piece.data) }
            continuation.finish(throwing: failure)
            return StreamingResponse(head: head, body: stream)
        }
        let delivery = Task { [pieces] in
            var delivered = 0.0
            for piece in pieces {
                if piece.time > delivered {
                    do {
                        try await clock.sleep(for: .milliseconds(piece.time - delivered))
                    } catch {
                        continuation.finish(throwing: RequestError.cancelled(underlyingError: error))
                        return
                    }
                    delivered = piece.time
                }
                continuation.yield(piece.data)
            }
            continuation.finish(throwing: failure)
        }
        continuation.onTermination = { delivery.cancel() }
        return StreamingResponse(head: head, body: stream)
    }
}

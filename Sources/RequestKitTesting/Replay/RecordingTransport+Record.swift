import Foundation
import RequestKit

extension RecordingTransport {
    /// Sends `request` through the base transport and records the exchange (or its failure).
    func recordSend(_ request: TransferRequest, sent: RecordedRequest) async throws -> Response {
        let started = Date()
        let start = ContinuousClock.now
        let response: Response
        do {
            response = try await base.send(request)
        } catch {
            throw try record(failure: error, of: sent, started: started, after: start.duration(to: .now))
        }
        let elapsed = Self.milliseconds(start.duration(to: .now))
        try record(
            sent, RecordedResponse(status: response.statusCode, headers: response.headers, body: response.body),
            chunks: nil, failure: nil, timing: HAREntry.Timing(started: started, head: elapsed, total: elapsed))
        return response
    }

    /// Sends `request` through the base transport and hands its body on as it arrives, recording each chunk's
    /// size and time; the exchange is recorded when the body ends, fails, or the consumer stops reading (then
    /// with the part received).
    func recordStream(_ request: TransferRequest, sent: RecordedRequest) async throws -> StreamingResponse {
        let started = Date()
        let start = ContinuousClock.now
        let streaming: StreamingResponse
        do {
            streaming = try await base.stream(request)
        } catch {
            throw try record(failure: error, of: sent, started: started, after: start.duration(to: .now))
        }
        let headArrived = ContinuousClock.now
        var head = streaming.head
        head.body = Data()
        let (stream, continuation) = ResponseBodyStream.makeStream(bufferLimit: request.bufferLimit)
        let gate = DemandGate()
        continuation.onDemand = { gate.open() }
        let pump = Task { [head] in
            var body = Data()
            var chunks: [HARChunk] = []
            var failure: RequestError?
            do {
                for try await chunk in streaming.body {
                    body.append(chunk)
                    chunks.append(HARChunk(size: chunk.count, time: Self.milliseconds(headArrived.duration(to: .now))))
                    gate.close()
                    if !continuation.yield(chunk) { await gate.wait() }
                    if continuation.isTerminated { break }
                }
            } catch {
                if !continuation.isTerminated { failure = RequestError.recorded(error) }
            }
            let timing = HAREntry.Timing(
                started: started, head: Self.milliseconds(start.duration(to: headArrived)),
                total: Self.milliseconds(start.duration(to: .now)))
            do {
                try record(
                    sent, RecordedResponse(status: head.statusCode, headers: head.headers, body: body),
                    chunks: chunks, failure: failure.map { HARFailure($0, duringBody: true) }, timing: timing)
                continuation.finish(throwing: failure)
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { pump.cancel() }
        return StreamingResponse(head: head, body: stream)
    }

    /// Records a failure before the head (unless it is a cancellation, which says nothing about the server) and
    /// returns the error to throw.
    func record(
        failure error: any Error, of sent: RecordedRequest, started: Date, after duration: Duration
    ) throws(RequestError) -> RequestError {
        if error is CancellationError || Task.isCancelled { return RequestError.cancelled(underlyingError: error) }
        let error = RequestError.recorded(error)
        guard !error.isCancelled else { return error }
        let elapsed = Self.milliseconds(duration)
        try record(
            sent, nil, chunks: nil, failure: HARFailure(error, duringBody: false),
            timing: HAREntry.Timing(started: started, head: elapsed, total: elapsed))
        return error
    }

    /// Redacts the exchange, appends it to the cassette and writes the cassette; returns the entry's index.
    @discardableResult
    func record(
        _ sent: RecordedRequest, _ response: RecordedResponse?, chunks: [HARChunk]?, failure: HARFailure?,
        timing: HAREntry.Timing
    ) throws(RequestError) -> Int {
        let redaction = configuration.redaction
        let written = cassette.withLock { cassette -> Result<Int, RequestError> in
            do throws(RequestError) {
                return .success(
                    try cassette.record(
                        sent, response, chunks: chunks, failure: failure, timing: timing, redaction: redaction))
            } catch {
                return .failure(error)
            }
        }
        return try written.get()
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return (Double(seconds) * 1000 + Double(attoseconds) / 1e15).rounded()
    }
}

extension RequestError {
    /// `error` as the `RequestError` a caller sees: itself, or a transport failure wrapping it.
    static func recorded(_ error: any Error) -> RequestError {
        (error as? RequestError) ?? RequestError.transport(error)
    }
}

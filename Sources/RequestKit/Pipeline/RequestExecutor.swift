import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The front of the request pipeline, which every way of sending goes through: builds and checks the request,
/// picks the transport, runs the ``Exchange`` (interceptors, cookies, monitors, redirects, retries) under the
/// total deadline, and turns every failure into a ``RequestError`` that names the request.
enum RequestExecutor {
    /// Builds and sends `parts`, returning the response with its whole body, whatever its status. Download
    /// progress, when asked for, is reported as the body arrives.
    static func send(_ parts: RequestParts) async throws(RequestError) -> Response {
        try await run(parts, sink: .memory(progress: parts[option: DownloadProgressKey.self])).response
    }

    /// Builds and sends `parts`, returning at the response head with the body still streaming. The total
    /// deadline covers the head only.
    ///
    /// The exchange runs in a child task. A task keeps the memory its deepest calls needed until it ends, and the
    /// pipeline's calls need some 15 KiB: a stream is often held for a long time (an event stream for hours), so
    /// that memory goes with the child task when the head arrives instead of staying with the caller's.
    static func stream(
        _ parts: RequestParts, bufferLimit: Int = TransferRequest.defaultBufferLimit
    ) async throws(RequestError) -> StreamingResponse {
        async let exchanged: Result<Delivery, RequestError> = {
            do {
                return .success(try await run(parts, sink: .consumer(bufferLimit: bufferLimit)))
            } catch {
                return .failure(RequestError.wrapping(error))
            }
        }()
        let delivery = try await exchanged.get()
        return StreamingResponse(head: delivery.response, body: delivery.body ?? ResponseBodyStream(Data()))
    }

    /// Runs the exchange of `parts` into `sink`.
    private static func run(_ parts: RequestParts, sink: ResponseSink) async throws(RequestError) -> Delivery {
        let urlRequest = try parts.makeURLRequest()
        let exchange = Exchange(parts, transport: parts.transport ?? DefaultTransport.shared)
        do {
            if let deadline = parts.resourceTimeout {
                return try await withDeadline(seconds: deadline, clock: parts.clock) {
                    try await exchange.run(urlRequest, sink: sink)
                }
            }
            try Task.checkCancellation()
            return try await exchange.run(urlRequest, sink: sink)
        } catch {
            throw RequestError.wrapping(error).describingRequest(parts)
        }
    }

    /// Runs `operation`, failing with a timeout when it takes longer than `seconds` on `clock`.
    static func withDeadline<T: Sendable>(
        seconds: Double, clock: RequestClock, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await clock.sleep(seconds: seconds)
                throw RequestError.timedOut("the total deadline of \(FoundationMapping.seconds(seconds)) s passed")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }
}

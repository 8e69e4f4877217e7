import Foundation
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The front of the request pipeline, which every way of sending goes through: builds and checks the request,
/// takes the transport (the one ``Using`` names, or the default its caller hands it: the layer above chooses it),
/// runs the ``Exchange`` (interceptors, cookies, monitors, redirects, retries) under the
/// total deadline, and turns every failure into a ``RequestError`` that names the request.
///
/// Every async function of the pipeline is `nonisolated(nonsending)`: it runs on the executor of its caller, the
/// public verbs, which are nonisolated and concurrent, so a request still leaves the caller's actor on the verb's
/// entry. A concurrent function switches executor on entry and again after each call it awaits, each switch asking
/// the task for its preferred executor under a lock; the pipeline's functions skip those.
package enum RequestExecutor {
    /// Builds and sends `parts`, returning the response with its whole body, whatever its status. Download
    /// progress, when asked for, is reported as the body arrives.
    @inline(__always)
    package nonisolated(nonsending) static func send(
        _ parts: consuming RequestParts, defaultTransport: any Transport
    ) async throws(RequestError) -> Response {
        let sink = ResponseSink.memory(progress: parts[option: DownloadProgressKey.self])
        return try await run(consume parts, sink: sink, defaultTransport: defaultTransport).takeResponse()
    }

    /// Builds and sends `parts`, returning at the response head with the body still streaming. The total
    /// deadline covers the whole exchange: a body still streaming when it passes fails with `.timedOut` and its
    /// connection closes.
    ///
    /// The exchange runs in the calling task. A task keeps the memory its deepest calls needed until it ends, yet
    /// a task of the exchange's own costs more: two more hand-offs between threads per stream (its start and its
    /// end each wake a thread of the pool) and, with 10,000 streams held at once, more resident memory (the
    /// `connections` benchmark in BENCHMARKS.md).
    package nonisolated(nonsending) static func stream(
        _ parts: RequestParts, bufferLimit: Int = TransferRequest.defaultBufferLimit, defaultTransport: any Transport
    ) async throws(RequestError) -> StreamingResponse {
        let started = parts.clock.now
        let delivery = try await run(
            parts, sink: .consumer(bufferLimit: bufferLimit), defaultTransport: defaultTransport)
        return streamingResponse(delivery, of: parts, started: started)
    }

    /// The stream of `delivery`, held to `parts`' line limit and total deadline. Out of line: the caller of
    /// ``stream(_:bufferLimit:defaultTransport:)`` keeps that function's frame for as long as it holds the stream.
    @inline(never)
    private static func streamingResponse(
        _ delivery: Delivery, of parts: RequestParts, started: Duration
    ) -> StreamingResponse {
        var body = delivery.body ?? ResponseBodyStream(Data())
        body.maxLineBytes = parts[option: ResponseLimitsKey.self].maxLineBytes
        if let deadline = parts.resourceTimeout {
            expire(body, after: deadline, since: started, parts: parts)
        }
        return StreamingResponse(head: delivery.response, body: body)
    }

    /// Fails `body` when the total deadline of `seconds` from `started` passes before its end, on the request's
    /// clock: a task sleeps until then, and goes as soon as the body ends.
    private static func expire(
        _ body: ResponseBodyStream, after seconds: Double, since started: Duration, parts: RequestParts
    ) {
        let clock = parts.clock
        let remaining = RequestClock.duration(seconds: seconds) - (clock.now - started)
        let failure = deadlinePassed(seconds).describingRequest(parts)
        let buffer = body.buffer
        let watch = Task {
            do {
                try await clock.sleep(for: remaining)
            } catch {
                return
            }
            buffer.expire(failure)
        }
        buffer.addEndHandler { _ in watch.cancel() }
    }

    /// The error of a total deadline that passed.
    private static func deadlinePassed(_ seconds: Double) -> RequestError {
        RequestError.timedOut("the total deadline of \(FoundationMapping.seconds(seconds)) s passed")
    }

    /// Runs the exchange of `parts` into `sink`. Inlined, like ``send(_:defaultTransport:)``: each async call a request goes through
    /// costs a frame allocation and a resumption.
    @inline(__always)
    private nonisolated(nonsending) static func run(
        _ parts: consuming RequestParts, sink: ResponseSink, defaultTransport: any Transport
    ) async throws(RequestError) -> Delivery {
        let exchange = try prepare(consume parts, defaultTransport: defaultTransport)
        do throws(RequestError) {
            if let deadline = exchange.parts.resourceTimeout {
                return try await run(exchange, sink: sink, deadline: deadline, clock: exchange.clock)
            }
            return try await exchange.run(sink: sink)
        } catch {
            throw error.describingRequest(exchange.parts)
        }
    }

    /// The exchange of the checked request. Kept out of line: inlined, its locals would enlarge the frame of every
    /// caller of ``run(_:sink:defaultTransport:)``, which a task keeps for as long as it runs.
    @inline(never)
    private static func prepare(
        _ parts: consuming RequestParts, defaultTransport: any Transport
    ) throws(RequestError) -> Exchange {
        let built = try parts.makeCheckedRequest()
        // Moved out, not copied: the exchange keeps it apart from the parts.
        let transport = parts.transport.take() ?? defaultTransport
        return Exchange(consume parts, transport: transport, built: built)
    }

    /// Runs `exchange` under a total deadline (out of line, for the same reason as ``prepare(_:defaultTransport:)``).
    @inline(never)
    private nonisolated(nonsending) static func run(
        _ exchange: Exchange, sink: ResponseSink, deadline: Double, clock: RequestClock
    ) async throws(RequestError) -> Delivery {
        do {
            return try await withDeadline(seconds: deadline, clock: clock) {
                try await exchange.run(sink: sink)
            }
        } catch {
            throw RequestError.wrapping(error)
        }
    }

    /// Runs `operation`, failing with a timeout when it takes longer than `seconds` on `clock`.
    nonisolated(nonsending) static func withDeadline<T: Sendable>(
        seconds: Double, clock: RequestClock, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await clock.sleep(seconds: seconds)
                throw deadlinePassed(seconds)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }
}

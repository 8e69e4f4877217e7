import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitSending

extension RequestRepresentable {
    /// Sends the request now and again for each element of `trigger`, running its handlers on each result, until
    /// the sequence ends or the returned handle is cancelled.
    ///
    /// Requests never overlap: an element that arrives while a request is in flight waits for it. Elements are
    /// only signals; their values are not read. A sequence that throws ends the updates. A failure runs `onError`;
    /// stopping does not report the cancelled request.
    ///
    /// ```swift
    /// let (ticks, tick) = AsyncStream.makeStream(of: Void.self)
    /// let updates = Request { Url("http://127.0.0.1:8080/json") }
    ///     .onJson { json in print(json) }
    ///     .update(publisher: ticks)
    /// tick.yield()        // one more request
    /// tick.finish()       // no more; `await updates.wait()` returns once the last handlers ran
    /// ```
    /// - Parameters:
    ///   - trigger: Any asynchronous sequence; each element sends the request once more.
    ///   - queue: The queue to run handlers on, or nil for a background task.
    /// - Returns: A handle that stops the updates, or waits until they stop.
    @discardableResult
    public func update<Trigger: AsyncSequence & Sendable>(
        publisher trigger: Trigger, on queue: DispatchQueue? = nil
    ) -> RequestHandle {
        let request = self.request
        return RequestHandle(label: { "updates of " + request.inFlightLabel }) {
            await request.sendForUpdate(on: queue)
            do {
                for try await _ in trigger {
                    if Task.isCancelled { return }
                    await request.sendForUpdate(on: queue)
                }
            } catch {
                return
            }
        }
    }
}

extension Request {
    /// Sends once and runs the handlers, unless the updates were stopped while the request was in flight.
    fileprivate func sendForUpdate(on queue: DispatchQueue?) async {
        let outcome: Result<Response, RequestError>
        do throws(RequestError) {
            outcome = .success(try await send())
        } catch {
            if Task.isCancelled { return }
            outcome = .failure(error)
        }
        await runCallbacks(for: outcome, on: queue)
    }
}

#if canImport(Combine)
import Combine

extension RequestRepresentable {
    /// Sends the request now and again for each value `publisher` emits, as swift-request's `update(publisher:)`
    /// did; see ``update(publisher:on:)-(some AsyncSequence & Sendable,_)`` for the rules.
    ///
    /// ```swift
    /// let updates = request.update(publisher: Timer.publish(every: 10, on: .main, in: .common).autoconnect())
    /// updates.cancel()
    /// ```
    /// - Parameters:
    ///   - publisher: A publisher that never fails; each value sends the request once more.
    ///   - queue: The queue to run handlers on, or nil for a background task.
    /// - Returns: A handle that stops the updates, or waits until they stop.
    @discardableResult
    public func update<Trigger: Publisher>(publisher: Trigger, on queue: DispatchQueue? = nil) -> RequestHandle
    where Trigger.Failure == Never {
        let (ticks, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let subscription = SubscriptionBox(
            publisher.sink(
                receiveCompletion: { _ in continuation.finish() }, receiveValue: { _ in continuation.yield() }))
        continuation.onTermination = { _ in subscription.cancel() }
        return update(publisher: ticks, on: queue)
    }
}

/// Keeps a Combine subscription alive until the updates it drives stop.
private final class SubscriptionBox: @unchecked Sendable {
    private let lock = NSLock()
    private var subscription: AnyCancellable?

    init(_ subscription: AnyCancellable) {
        self.subscription = subscription
    }

    func cancel() {
        lock.lock()
        let subscription = self.subscription
        self.subscription = nil
        lock.unlock()
        subscription?.cancel()
    }
}
#endif

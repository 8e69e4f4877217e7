import Foundation
import RequestKitJSON
import RequestKitModel
import RequestKitSending

extension RequestGroup {
    /// Calls `handler` with each successful response's index and body, as it completes.
    ///
    /// ```swift
    /// group.onData { index, data in print(index, data.count) }.call()
    /// ```
    public func onData(_ handler: @escaping @Sendable (Int, Data) -> Void) -> RequestGroup {
        var copy = self
        copy.callbacks.response.append { index, response in handler(index, response.body) }
        return copy
    }

    /// Calls `handler` with each successful response's body as text; undecodable text goes to `onError`.
    ///
    /// ```swift
    /// group.onString { index, text in print(index, text) }.call()
    /// ```
    public func onString(_ handler: @escaping @Sendable (Int, String) -> Void) -> RequestGroup {
        var copy = self
        copy.callbacks.response.append { index, response throws(RequestError) in
            handler(index, try response.string())
        }
        return copy
    }

    /// Calls `handler` with each successful response's body parsed as JSON; a body that is not JSON goes to
    /// `onError`.
    ///
    /// ```swift
    /// group.onJson { index, json in print(index, json.id.int ?? 0) }.call()
    /// ```
    public func onJson(_ handler: @escaping @Sendable (Int, Json) -> Void) -> RequestGroup {
        var copy = self
        copy.callbacks.response.append { index, response throws(RequestError) in
            handler(index, try response.json())
        }
        return copy
    }

    /// Calls `handler` with each failure and the index of its request.
    ///
    /// ```swift
    /// group.onError { index, error in print(index, error.kind) }.call()
    /// ```
    public func onError(_ handler: @escaping @Sendable (Int, RequestError) -> Void) -> RequestGroup {
        var copy = self
        copy.callbacks.error.append(handler)
        return copy
    }

    /// Calls `handler` once every request is done, with every result in declaration order.
    ///
    /// Requests never started, because the group failed fast or was cancelled, are `.cancelled` failures.
    ///
    /// ```swift
    /// group.onComplete { results in print(results.count) }.call()
    /// ```
    public func onComplete(_ handler: @escaping @Sendable ([Result<Response, RequestError>]) -> Void) -> RequestGroup {
        var copy = self
        copy.callbacks.complete.append(handler)
        return copy
    }

    /// Sends the group in the background and runs the handlers as results arrive, one at a time.
    ///
    /// Handlers run on `queue` when one is given, otherwise on a background task. Cancelling the handle
    /// cancels every outstanding request; `onComplete` still runs, with `.cancelled` failures for those. The
    /// group's handlers run, not those added to the requests themselves with ``Request/onData(_:)`` and friends.
    ///
    /// ```swift
    /// let handle = group
    ///     .onData { index, data in print(index, data.count) }
    ///     .onComplete { results in print("done", results.count) }
    ///     .call()
    /// handle.cancel()
    /// ```
    /// - Parameter queue: The queue to run handlers on, or nil for a background task.
    /// - Returns: A handle that cancels every request or waits until the handlers have run.
    @discardableResult
    public func call(on queue: DispatchQueue? = nil) -> RequestHandle {
        let group = self
        let callbacks = self.callbacks
        return RequestHandle(label: { group.label }) {
            var slots = [Result<Response, RequestError>?](repeating: nil, count: group.requests.count)
            _ = await group.forEachResult(failFast: group.isFailFast) { index, result in
                slots[index] = result
                await HandlerQueue.perform(on: queue) { callbacks.run(for: result, at: index) }
            }
            let results = slots.map { $0 ?? .failure(RequestError.cancelled()) }
            await HandlerQueue.perform(on: queue) { for handler in callbacks.complete { handler(results) } }
        }
    }
}

extension RequestGroup {
    /// How a call of the group is named in flight: its requests.
    var label: String {
        let shown = requests.prefix(3).map(\.inFlightLabel).joined(separator: ", ")
        let more = requests.count > 3 ? " and \(requests.count - 3) more" : ""
        return "RequestGroup of \(requests.count) requests (\(shown)\(more))"
    }
}

extension GroupCallbacks {
    /// Runs the success handlers, or the error handlers for a failure or a handler that could not decode.
    func run(for result: Result<Response, RequestError>, at index: Int) {
        var failure: RequestError?
        switch result {
        case .success(let response):
            do throws(RequestError) {
                for handler in self.response { try handler(index, response) }
            } catch {
                failure = error
            }
        case .failure(let error):
            failure = error
        }
        if let failure {
            for handler in error { handler(index, failure) }
        }
    }
}

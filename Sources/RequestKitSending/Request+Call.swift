import Foundation
import RequestKitDSL
import RequestKitModel

extension Request {
    /// Calls `handler` with the response body when the request succeeds.
    ///
    /// A response that fails validation (a 404, say) goes to ``onError(_:)`` instead, never here.
    ///
    /// ```swift
    /// Request { Url("http://127.0.0.1:8080/json") }
    ///     .onData { data in print(data.count) }
    ///     .onError { error in print(error) }
    ///     .call()
    /// ```
    public func onData(_ handler: @escaping @Sendable (Data) -> Void) -> Request {
        var copy = self
        copy.callbacks.response.append { response in handler(response.body) }
        return copy
    }

    /// Calls `handler` with the body as text when the request succeeds; undecodable text goes to `onError`.
    ///
    /// ```swift
    /// request.onString { text in print(text) }.call()
    /// ```
    public func onString(_ handler: @escaping @Sendable (String) -> Void) -> Request {
        var copy = self
        copy.callbacks.response.append { response throws(RequestError) in handler(try response.string()) }
        return copy
    }

    /// Calls `handler` with the body, as swift-request's `onObject` did for an untyped request.
    ///
    /// ```swift
    /// request.onObject { data in print(data.count) }.call()
    /// ```
    public func onObject(_ handler: @escaping @Sendable (Data) -> Void) -> Request {
        onData(handler)
    }

    /// Calls `handler` with the whole response when the request succeeds.
    ///
    /// ```swift
    /// request.onResponse { response in print(response.headers) }.call()
    /// ```
    public func onResponse(_ handler: @escaping @Sendable (Response) -> Void) -> Request {
        var copy = self
        copy.callbacks.response.append { response in handler(response) }
        return copy
    }

    /// Calls `handler` with the status code of every response, before validation, so it sees a 404 too.
    ///
    /// ```swift
    /// request.onStatusCode { code in print(code) }.call()
    /// ```
    public func onStatusCode(_ handler: @escaping @Sendable (Int) -> Void) -> Request {
        var copy = self
        copy.callbacks.statusCode.append(handler)
        return copy
    }

    /// Calls `handler` with every failure: transport errors, timeouts, unacceptable statuses, validation and
    /// decoding failures.
    ///
    /// ```swift
    /// request.onError { error in print(error.kind, error.statusCode ?? 0) }.call()
    /// ```
    public func onError(_ handler: @escaping @Sendable (RequestError) -> Void) -> Request {
        var copy = self
        copy.callbacks.error.append(handler)
        return copy
    }

    /// Decodes the body of an unacceptable response as `type` and keeps it in the thrown error.
    ///
    /// ```swift
    /// do {
    ///     _ = try await request.decodingErrorBody(as: APIProblem.self).data()
    /// } catch {
    ///     print(error.errorBody(as: APIProblem.self)?.detail ?? "")
    /// }
    /// ```
    public func decodingErrorBody<E: Decodable & Sendable>(
        as type: E.Type, decoder: JSONDecoder = JSONDecoder()
    )
        -> Request
    {
        var copy = self
        copy.callbacks.errorBodyDecoder = { data in try? decoder.decodeWithTypedDecoder(E.self, from: data) }
        return copy
    }

    /// Sends the request in the background and runs the handlers with the result.
    ///
    /// Handlers run one after another, in the order they were added: status-code handlers first, then either
    /// the success handlers or the error handlers. They run on `queue` when one is given (pass `.main` to update
    /// a UI); otherwise on a background task of Swift's global concurrent executor.
    ///
    /// ```swift
    /// let handle = Request { Url("http://127.0.0.1:8080/delay/5") }
    ///     .onData { print($0.count) }
    ///     .onError { print($0) }
    ///     .call()
    /// handle.cancel()  // onError receives a `.cancelled` error
    /// ```
    /// - Parameter queue: The queue to run handlers on, or nil for a background task.
    /// - Returns: A handle that cancels the request or waits for it.
    @discardableResult
    public func call(on queue: DispatchQueue? = nil) -> RequestHandle {
        let request = self
        return RequestHandle(label: { request.inFlightLabel }) {
            let outcome: Result<Response, RequestError>
            do throws(RequestError) {
                outcome = .success(try await request.send())
            } catch {
                outcome = .failure(error)
            }
            await request.runCallbacks(for: outcome, on: queue)
        }
    }

    /// Runs the handlers for a result of `send()`.
    package func runCallbacks(for outcome: Result<Response, RequestError>, on queue: DispatchQueue?) async {
        let callbacks = self.callbacks
        let parts = self.parts()
        var failure: RequestError?
        switch outcome {
        case .success(let response):
            await Self.perform(on: queue) { for handler in callbacks.statusCode { handler(response.statusCode) } }
            do {
                try await parts.validation.validate(response)
            } catch {
                failure = callbacks.attachingErrorBody(to: error).describingRequest(parts)
            }
            if failure == nil {
                failure = await Self.perform(on: queue) { () -> RequestError? in
                    do throws(RequestError) {
                        for handler in callbacks.response { try handler(response) }
                        return nil
                    } catch {
                        return error.describingRequest(parts)
                    }
                }
            }
        case .failure(let error):
            failure = error
        }
        if let failure {
            await Self.perform(on: queue) { for handler in callbacks.error { handler(failure) } }
        }
    }

    /// Runs `work` on `queue`, or right here when there is none.
    private static func perform<T: Sendable>(on queue: DispatchQueue?, _ work: @escaping @Sendable () -> T) async -> T {
        guard let queue else { return work() }
        return await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }
}

import Foundation
import RequestKitModel
import RequestKitSending

/// A reusable multi-step workflow: each step builds its request from the responses before it.
///
/// Steps run one after another and each response is validated (a 401 fails its step). By default the chain
/// stops at the first failing step and throws an error whose description names the step and keeps the
/// underlying error and response. With `continueOnFailure: true` every step runs and the failures are
/// collected in ``StepResponses/errors``; a later step that asks for a failed step's response fails too.
///
/// ```swift
/// let chain = RequestChain {
///     Step("login") { _ in
///         Request { Url("http://127.0.0.1:8080/login"); Method(.post); Body(json: ["user": "ann"]) }
///     }
///     Step("profile") { previous in
///         let token = try previous.json("login").token.string ?? ""
///         return Request { Url("http://127.0.0.1:8080/me"); Header.Authorization(.bearer(token)) }
///     }
/// }
/// let profile = try await chain.send().response("profile")
/// ```
///
/// A chain pays off when the same workflow is described once and run many times, handed around as a value,
/// started with callbacks, or when its steps should appear by name in errors. For a one-off sequence in
/// `async` code, plain sequential `await`s are simpler and just as clear:
///
/// ```swift
/// let token = try await login.json().token.string ?? ""
/// let profile = try await Request { Url("http://127.0.0.1:8080/me"); Header.Authorization(.bearer(token)) }.json()
/// ```
public struct RequestChain: Sendable {
    /// The steps, in the order they run.
    public let steps: [Step]
    /// Whether the steps after a failing one still run.
    public let continuesAfterFailure: Bool
    /// Handlers told about each step as it finishes.
    var stepHandlers: [@Sendable (String, Result<Response, RequestError>) -> Void] = []

    /// Creates a chain from a block of steps.
    ///
    /// ```swift
    /// let chain = RequestChain(continueOnFailure: true) {
    ///     Step("a", Request { Url("http://127.0.0.1:8080/status/500") })
    ///     Step("b", Request { Url("http://127.0.0.1:8080/get") })
    /// }
    /// ```
    /// - Parameters:
    ///   - continueOnFailure: Whether the steps after a failing one still run; false stops at the first failure.
    ///   - content: The steps.
    public init(continueOnFailure: Bool = false, @StepBuilder _ content: () -> [Step]) {
        self.init(content(), continueOnFailure: continueOnFailure)
    }

    /// Creates a chain from steps built elsewhere.
    ///
    /// ```swift
    /// let chain = RequestChain([login, profile])
    /// ```
    public init(_ steps: [Step], continueOnFailure: Bool = false) {
        self.steps = steps.enumerated().map { index, step in step.name.isEmpty ? step.named("\(index + 1)") : step }
        self.continuesAfterFailure = continueOnFailure
    }

    /// Runs the steps in order and returns every step's validated result.
    ///
    /// ```swift
    /// let responses = try await chain.send()
    /// print(responses.responses.map(\.statusCode))
    /// ```
    /// - Returns: Each step's name and result; failures appear only when the chain continues after them.
    /// - Throws: ``RequestError``: the first failing step's error, naming the step, unless the chain continues
    ///   after failures; a `.cancelled` error when the awaiting task is cancelled.
    public func send() async throws(RequestError) -> StepResponses {
        let (responses, failure) = await run()
        if let failure { throw failure }
        return responses
    }

    /// Calls `handler` with each step's name and validated result as the step finishes, for logging or
    /// progress; it runs for ``send()`` and ``call(on:_:)`` alike. A step built as a ``RequestGroup`` reports its
    /// error, or its last response, as in ``StepResponses/results``.
    ///
    /// ```swift
    /// let logged = chain.onStep { name, result in
    ///     print(name, (try? result.get().statusCode) ?? 0)
    /// }
    /// ```
    public func onStep(_ handler: @escaping @Sendable (String, Result<Response, RequestError>) -> Void) -> RequestChain
    {
        var copy = self
        copy.stepHandlers.append(handler)
        return copy
    }

    /// Runs the steps in the background, then calls `completion` with each step's body and error, as
    /// swift-request's `call` did.
    ///
    /// `data` and `errors` hold one entry per step that ran, in order: the body (nil where the step failed) and
    /// the error (nil where it succeeded; each names its step). When the chain stops before a step is sent
    /// (cancellation), the error that stopped it is one more entry, with nil data.
    ///
    /// ```swift
    /// chain.call { (data, errors) in
    ///     if let error = errors.compactMap({ $0 }).first { print(error) } else { print(data.last??.count ?? 0) }
    /// }
    /// ```
    /// - Parameters:
    ///   - queue: The queue to call `completion` on, or nil for a background task.
    ///   - completion: Receives each step's body and error.
    /// - Returns: A handle that cancels the chain or waits until `completion` has run.
    @discardableResult
    public func call(
        on queue: DispatchQueue? = nil, _ completion: @escaping @Sendable ([Data?], [RequestError?]) -> Void
    ) -> RequestHandle {
        let chain = self
        return RequestHandle(label: { chain.label }) {
            let (responses, failure) = await chain.run()
            var data = responses.bodies
            var errors = responses.stepErrors
            if let failure, errors.last.flatMap({ $0 }) == nil {
                data.append(nil)
                errors.append(failure)
            }
            let (bodies, stepErrors) = (data, errors)
            await HandlerQueue.perform(on: queue) { completion(bodies, stepErrors) }
        }
    }

    /// Runs the steps in order, returning what ran and the error that stopped the chain, if one did.
    func run() async -> (StepResponses, RequestError?) {
        var previous = StepResponses()
        for step in steps {
            if Task.isCancelled { return (previous, RequestError.cancelled().describingStep(step.name)) }
            let (result, group) = await run(step, after: previous)
            previous.append(result, for: step.name, group: group)
            for handler in stepHandlers { handler(step.name, result) }
            if case .failure(let error) = result, !continuesAfterFailure || error.isCancelled {
                return (previous, error)
            }
        }
        return (previous, nil)
    }

    /// Builds and sends one step, naming the step in any error; a group step also returns its responses.
    private func run(
        _ step: Step, after previous: StepResponses
    ) async -> (Result<Response, RequestError>, [Response]?) {
        do throws(RequestError) {
            switch step.work {
            case .request(let makeRequest):
                let request = try await Self.build(step) { try await makeRequest(previous) }
                return (.success(try await request.validatedResponse()), nil)
            case .group(let makeGroup):
                let group = try await Self.build(step) { try await makeGroup(previous) }
                let responses = try await Self.send(group)
                guard let last = responses.last else {
                    throw RequestError.stepFailed(detail: "built a RequestGroup with no requests")
                }
                return (.success(last), responses)
            }
        } catch {
            return (.failure(error.describingStep(step.name)), nil)
        }
    }

    /// Runs a step's closure; an error that is not a ``RequestError`` becomes a `stepFailed` one keeping it.
    private static func build<T>(
        _ step: Step, _ make: () async throws -> T
    ) async throws(RequestError) -> T {
        do {
            return try await make()
        } catch let error as RequestError {
            throw error
        } catch {
            throw RequestError.stepFailed(detail: "could not build its request", underlyingError: error)
        }
    }

    /// Sends a step's group; the first failing slot, by index, fails the step and names the slot.
    private static func send(_ group: RequestGroup) async throws(RequestError) -> [Response] {
        var responses: [Response] = []
        for result in try await group.send() {
            responses.append(try result.get())
        }
        return responses
    }

    /// How a call of the chain is named in flight: its steps.
    var label: String {
        "RequestChain of steps " + steps.map { "\"\($0.name)\"" }.joined(separator: ", ")
    }
}

import RequestKitDSL
import RequestKitModel

/// One named step of a ``RequestChain``: builds its request from the responses of the steps before it.
///
/// The closure may throw: a ``RequestError`` is kept as it is, any other error fails the step with a
/// ``RequestError/Kind/stepFailed`` error that keeps it. Either way the error names the step.
///
/// ```swift
/// Step("profile") { previous in
///     let token = try previous.json("login").token.string ?? ""
///     return Request {
///         Url("http://127.0.0.1:8080/me")
///         Header.Authorization(.bearer(token))
///     }
/// }
/// ```
///
/// A step can fan out: built as a ``RequestGroup``, it sends the group's requests concurrently, and later steps
/// read their responses with ``StepResponses/responses(_:)``.
public struct Step: Sendable {
    /// The step's name, used in errors and to look up its response from later steps.
    public let name: String
    /// Builds the request, or the group of requests, from the earlier steps' responses.
    let work: Work

    /// What a step sends.
    enum Work: Sendable {
        /// One request.
        case request(@Sendable (StepResponses) async throws -> any RequestRepresentable)
        /// A group of requests sent concurrently.
        case group(@Sendable (StepResponses) async throws -> RequestGroup)
    }

    /// Creates a step.
    ///
    /// ```swift
    /// Step("login") { _ in Request { Url("http://127.0.0.1:8080/login"); Method(.post) } }
    /// ```
    /// - Parameters:
    ///   - name: The step's name; names should be unique within a chain.
    ///   - makeRequest: Builds the request from the responses of the steps before this one.
    public init(
        _ name: String, _ makeRequest: @escaping @Sendable (StepResponses) async throws -> any RequestRepresentable
    ) {
        self.name = name
        self.work = .request(makeRequest)
    }

    /// Creates a step that fans out: the requests of the group it builds are sent concurrently, at most the
    /// group's `maxConcurrent` at a time.
    ///
    /// Later steps read the responses, in the group's order, with ``StepResponses/responses(_:)``. A request that
    /// fails (a 404, say) fails the step, with an error naming the step and the slot: its index in the group, its
    /// method and its URL, secrets redacted. A group with no requests fails the step too, since nothing it could
    /// hand on would tell an empty answer from a misread one.
    ///
    /// ```swift
    /// Step("details") { previous in
    ///     let ids = try previous.decode("list", as: [Int].self)
    ///     return RequestGroup {
    ///         for id in ids { Request { Url("http://127.0.0.1:8080/todos/\(id)") } }
    ///     }
    /// }
    /// ```
    /// - Parameters:
    ///   - name: The step's name; names should be unique within a chain.
    ///   - makeGroup: Builds the group from the responses of the steps before this one.
    @_disfavoredOverload  // A closure that only throws builds a request step, as before groups could be steps.
    public init(_ name: String, _ makeGroup: @escaping @Sendable (StepResponses) async throws -> RequestGroup) {
        self.name = name
        self.work = .group(makeGroup)
    }

    private init(_ name: String, work: Work) {
        self.name = name
        self.work = work
    }

    /// Creates a step that always sends the same request.
    ///
    /// ```swift
    /// Step("health", Request { Url("http://127.0.0.1:8080/status/200") })
    /// ```
    public init(_ name: String, _ request: some RequestRepresentable) {
        self.init(name) { _ in request }
    }

    /// The same step under another name.
    func named(_ name: String) -> Step {
        Step(name, work: work)
    }
}

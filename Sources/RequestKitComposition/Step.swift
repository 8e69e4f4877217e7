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
public struct Step: Sendable {
    /// The step's name, used in errors and to look up its response from later steps.
    public let name: String
    /// Builds the request from the earlier steps' responses.
    let makeRequest: @Sendable (StepResponses) async throws -> any RequestRepresentable

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
        self.makeRequest = makeRequest
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
        Step(name, makeRequest)
    }
}

import Foundation
import RequestKitJSON
import RequestKitModel

/// The outcomes of a chain's steps so far, by name and position: what each step receives, and what
/// ``RequestChain/send()`` returns.
///
/// ```swift
/// Step("order") { previous in
///     let user = try previous.json("profile")
///     let login = try previous.response("login")
///     return Request { Url("http://127.0.0.1:8080/users/\(user.id.int ?? 0)/orders") }
/// }
/// ```
public struct StepResponses: Sendable {
    /// The names of the steps that ran, in order.
    public private(set) var names: [String] = []
    /// The validated result of each step that ran, in order. A step built as a ``RequestGroup`` has its error here,
    /// or its last response; ``responses(_:)`` gives all of them.
    public private(set) var results: [Result<Response, RequestError>] = []
    /// The responses of each step built as a group, in the group's order; nil for a step of one request.
    private var groupResponses: [[Response]?] = []

    /// Creates an empty list.
    init() {}

    /// Records the outcome of a step, with the responses of a group step that succeeded.
    mutating func append(_ result: Result<Response, RequestError>, for name: String, group: [Response]? = nil) {
        names.append(name)
        results.append(result)
        groupResponses.append(group)
    }

    /// The number of steps that ran.
    public var count: Int { results.count }

    /// The responses of the steps that succeeded, in order.
    ///
    /// ```swift
    /// let statuses = try await chain.send().responses.map(\.statusCode)
    /// ```
    public var responses: [Response] { results.compactMap { try? $0.get() } }

    /// The errors of the steps that failed, in order; each names its step.
    ///
    /// ```swift
    /// for error in try await chain.send().errors { print(error) }
    /// ```
    public var errors: [RequestError] {
        results.compactMap { result in
            if case .failure(let error) = result { return error }
            return nil
        }
    }

    /// The body of each step that ran, in order; nil where the step failed.
    ///
    /// ```swift
    /// let first = Json(previous.bodies[0])
    /// ```
    public var bodies: [Data?] { results.map { try? $0.get().body } }

    /// The error of each step that ran, in order; nil where the step succeeded.
    ///
    /// ```swift
    /// if let error = previous.stepErrors.last ?? nil { print(error) }
    /// ```
    public var stepErrors: [RequestError?] {
        results.map { result in
            if case .failure(let error) = result { return error }
            return nil
        }
    }

    /// The last successful response, if any.
    ///
    /// ```swift
    /// let final = try await chain.send().last?.body
    /// ```
    public var last: Response? { responses.last }

    /// The response of the step with this name, or nil when it did not run or failed.
    ///
    /// ```swift
    /// let status = previous["login"]?.statusCode
    /// ```
    public subscript(name: String) -> Response? { try? response(name) }

    /// The response of the step with this name.
    ///
    /// ```swift
    /// let cookie = try previous.response("login").headers["Set-Cookie"]
    /// ```
    /// - Throws: A ``RequestError/Kind/stepFailed`` error, keeping the step's own error when it failed, or
    ///   saying that no step of that name ran, or that the step sent a group (read it with ``responses(_:)``).
    public func response(_ name: String) throws(RequestError) -> Response {
        let index = try index(of: name)
        if let group = groupResponses[index] {
            throw RequestError.stepFailed(
                detail: "step \"\(name)\" sent a RequestGroup of \(group.count) requests; "
                    + "read their responses with responses(\"\(name)\")")
        }
        return try Self.unwrap(results[index], name: "step \"\(name)\"")
    }

    /// The responses of the step with this name: those of its ``RequestGroup`` in the group's order, or its one
    /// response.
    ///
    /// ```swift
    /// Step("summary") { previous in
    ///     let todos = try previous.responses("details").map { try $0.decode(Todo.self) }
    ///     return Request { Url("http://127.0.0.1:8080/summary"); Method(.post); Body(todos) }
    /// }
    /// ```
    /// - Throws: A ``RequestError/Kind/stepFailed`` error, keeping the step's own error when it failed (naming
    ///   the group's slot that failed), or saying that no step of that name ran.
    public func responses(_ name: String) throws(RequestError) -> [Response] {
        let index = try index(of: name)
        let response = try Self.unwrap(results[index], name: "step \"\(name)\"")
        return groupResponses[index] ?? [response]
    }

    /// The position of the last step with this name.
    private func index(of name: String) throws(RequestError) -> Int {
        guard let index = names.lastIndex(of: name) else {
            throw RequestError.stepFailed(detail: "no step named \"\(name)\" ran before this one")
        }
        return index
    }

    /// The response of the step at this position (0 for the first step).
    ///
    /// ```swift
    /// let first = try previous.response(at: 0)
    /// ```
    /// - Throws: A ``RequestError/Kind/stepFailed`` error, keeping the step's own error when it failed, or
    ///   saying that fewer steps ran.
    public func response(at index: Int) throws(RequestError) -> Response {
        guard results.indices.contains(index) else {
            throw RequestError.stepFailed(detail: "no step ran at position \(index); \(count) did")
        }
        return try Self.unwrap(results[index], name: "step \"\(names[index])\"")
    }

    /// The body of the step with this name, parsed as JSON.
    ///
    /// ```swift
    /// let token = try previous.json("login").token.string ?? ""
    /// ```
    /// - Throws: ``RequestError``: a failed or missing step, or a body that is not JSON.
    public func json(_ name: String) throws(RequestError) -> Json {
        try response(name).json()
    }

    /// The response of a step that succeeded, or an error saying the step needed here failed.
    private static func unwrap(_ result: Result<Response, RequestError>, name: String) throws(RequestError) -> Response
    {
        switch result {
        case .success(let response): return response
        case .failure(let error):
            throw RequestError.stepFailed(detail: "needs \(name), which failed", underlyingError: error)
        }
    }
}

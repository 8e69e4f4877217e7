import Foundation
import RequestKitJSON
import RequestKitModel

extension StepResponses {
    /// The body of the step with this name, decoded from JSON into `type`.
    ///
    /// Each call decodes the body again: no request is sent, the bytes are already in memory, and the parse is
    /// the whole cost. Keep the value in a `let` when a step needs it more than once.
    ///
    /// ```swift
    /// Step("profile") { previous in
    ///     let login = try previous.decode("login", as: Token.self)
    ///     return Request { Url(profileURL); Header.Authorization(.bearer(login.token)) }
    /// }
    /// ```
    /// - Parameters:
    ///   - name: The step's name.
    ///   - type: The type to decode.
    ///   - decoder: The decoder to use.
    /// - Returns: The decoded value.
    /// - Throws: ``RequestError``: a failed or missing step, or a body that does not decode, naming the step and
    ///   the missing or mismatched key (`Could not decode Token from step "login" …: no key "token"`).
    public func decode<T: Decodable>(
        _ name: String, as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) throws(RequestError) -> T {
        let response = try response(name)
        do {
            return try decoder.decode(T.self, from: response.body)
        } catch {
            throw RequestError.decoding(error, type: "\(T.self) from step \"\(name)\"", response: response)
        }
    }

    /// The value at `path` in the JSON body of the step with this name; a key or index that is not there is an
    /// error naming the step and the path, rather than an empty value that fails a later request.
    ///
    /// ```swift
    /// let token = try previous.json("login", at: "data", "token").string ?? ""
    /// ```
    /// - Parameters:
    ///   - name: The step's name.
    ///   - path: Keys and indices, from the document's root.
    /// - Returns: The value, which may be `null`.
    /// - Throws: ``RequestError``: a failed or missing step, a body that is not JSON, or a path that is not in it
    ///   (`step "login" has no "data.token" in its JSON body`).
    public func json(_ name: String, at path: any JsonPathElement...) throws(RequestError) -> Json {
        var value = try json(name)
        for element in path {
            switch element.jsonPathComponent {
            case .key(let key): value = value[key]
            case .index(let index): value = value[index]
            }
        }
        guard value.isMissing else { return value }
        let spelled = path.map { element -> String in
            switch element.jsonPathComponent {
            case .key(let key): key
            case .index(let index): "[\(index)]"
            }
        }
        .joined(separator: ".")
        .replacingOccurrences(of: ".[", with: "[")
        throw RequestError.stepFailed(detail: "step \"\(name)\" has no \"\(spelled)\" in its JSON body")
    }
}

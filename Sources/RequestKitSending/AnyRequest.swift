import Foundation
import RequestKitDSL
import RequestKitModel

/// A request whose response decodes into `Value`.
///
/// ```swift
/// struct Todo: Codable, Sendable { let id: Int; let title: String }
///
/// let todos = try await AnyRequest<[Todo]> {
///     Url("http://127.0.0.1:8080/todos")
///     Header.Accept(.json)
/// }.value()
/// ```
public struct AnyRequest<Value: Decodable & Sendable>: RequestRepresentable {
    /// The underlying request.
    public var request: Request
    /// The decoder for the body.
    public var decoder: JSONDecoder

    /// Creates a typed request from a block of components.
    ///
    /// ```swift
    /// let decoder = JSONDecoder()
    /// decoder.keyDecodingStrategy = .convertFromSnakeCase
    /// let request = AnyRequest<User>(decoder: decoder) { Url("http://127.0.0.1:8080/me") }
    /// ```
    public init(decoder: JSONDecoder = JSONDecoder(), @RequestBuilder _ content: () -> any RequestComponent) {
        self.request = Request(content)
        self.decoder = decoder
    }

    /// Wraps an existing request.
    ///
    /// ```swift
    /// let typed = AnyRequest<[Todo]>(request)
    /// ```
    public init(_ request: Request, decoder: JSONDecoder = JSONDecoder()) {
        self.request = request
        self.decoder = decoder
    }

    /// Sends the request, validates the response and decodes its body.
    ///
    /// ```swift
    /// let user = try await AnyRequest<User> { Url("http://127.0.0.1:8080/me") }.value()
    /// ```
    /// - Returns: The decoded value.
    /// - Throws: ``RequestError``: unacceptable status, decoding failure (with the body), transport, timeout.
    public func value() async throws(RequestError) -> Value {
        try await validatedResponse { response, _ throws(RequestError) in
            try response.decode(Value.self, decoder: decoder)
        }
    }

    /// Calls `handler` with the decoded value when the request succeeds; a decoding failure goes to `onError`.
    ///
    /// ```swift
    /// AnyRequest<[Todo]> { Url("http://127.0.0.1:8080/todos") }
    ///     .onObject { todos in print(todos.count) }
    ///     .call()
    /// ```
    public func onObject(_ handler: @escaping @Sendable (Value) -> Void) -> Self {
        let decoder = self.decoder
        var copy = self
        copy.request.callbacks.response.append { response throws(RequestError) in
            handler(try response.decode(Value.self, decoder: decoder))
        }
        return copy
    }

    /// Calls `handler` with the body when the request succeeds.
    ///
    /// ```swift
    /// typed.onData { data in print(data.count) }
    /// ```
    public func onData(_ handler: @escaping @Sendable (Data) -> Void) -> Self {
        map { $0.onData(handler) }
    }

    /// Calls `handler` with the body as text when the request succeeds.
    ///
    /// ```swift
    /// typed.onString { print($0) }
    /// ```
    public func onString(_ handler: @escaping @Sendable (String) -> Void) -> Self {
        map { $0.onString(handler) }
    }

    /// Calls `handler` with every status code, before validation.
    ///
    /// ```swift
    /// typed.onStatusCode { print($0) }
    /// ```
    public func onStatusCode(_ handler: @escaping @Sendable (Int) -> Void) -> Self {
        map { $0.onStatusCode(handler) }
    }

    /// Calls `handler` with every failure, including decoding failures.
    ///
    /// ```swift
    /// typed.onError { print($0) }
    /// ```
    public func onError(_ handler: @escaping @Sendable (RequestError) -> Void) -> Self {
        map { $0.onError(handler) }
    }

    /// Decodes the body of an unacceptable response as `type` and keeps it in the error.
    ///
    /// ```swift
    /// typed.decodingErrorBody(as: APIProblem.self)
    /// ```
    public func decodingErrorBody<E: Decodable & Sendable>(
        as type: E.Type, decoder: JSONDecoder = JSONDecoder()
    )
        -> Self
    {
        map { $0.decodingErrorBody(as: type, decoder: decoder) }
    }

    /// Sends the request in the background and runs the handlers; see ``Request/call(on:)``.
    ///
    /// ```swift
    /// typed.onObject { print($0) }.call()
    /// ```
    @discardableResult
    public func call(on queue: DispatchQueue? = nil) -> RequestHandle {
        request.call(on: queue)
    }

    private func map(_ transform: (Request) -> Request) -> Self {
        var copy = self
        copy.request = transform(request)
        return copy
    }
}

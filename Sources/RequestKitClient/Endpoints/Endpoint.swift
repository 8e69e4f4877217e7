import Foundation
import RequestKitDSL
import RequestKitJSON
import RequestKitModel

/// A typed API operation: a request definition bundled with the type its response decodes into and,
/// optionally, the type of its error body. Send it with a ``Client``.
///
/// `Output` may be any `Decodable` (decoded with the client's decoder), `Data`, `String`, ``Json``,
/// ``Response`` or ``NoContent``; implement ``decode(_:decoder:)`` for anything else.
///
/// ```swift
/// struct GetProfile: Endpoint {
///     typealias Output = Profile
///     typealias ErrorBody = APIProblem
///     let userID: String
///     var body: any RequestComponent {
///         Path(template: "/profile/{user_id}", ["user_id": userID])
///         Header.Accept(.json)
///     }
/// }
///
/// let profile = try await client.send(GetProfile(userID: "ann lee"))   // GET /profile/ann%20lee
/// ```
public protocol Endpoint: Sendable {
    /// What a successful response decodes into.
    associatedtype Output: Sendable
    /// What an unsuccessful response's body decodes into, kept in the thrown error
    /// (``RequestError/errorBody(as:)``); ``NoErrorBody`` when the endpoint declares none.
    associatedtype ErrorBody: Decodable & Sendable = NoErrorBody

    /// The request's components, resolved against the client's base URL.
    @RequestBuilder var body: any RequestComponent { get }

    /// Turns a validated response into the output.
    ///
    /// - Parameters:
    ///   - response: The response, already validated.
    ///   - decoder: The client's decoder.
    /// - Returns: The output.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/decoding``.
    func decode(_ response: Response, decoder: JSONDecoder) throws(RequestError) -> Output
}

extension Endpoint {
    /// The endpoint's request, for inspecting (`cURL`) or sending without a client.
    ///
    /// ```swift
    /// print(GetProfile(userID: "ann").request.cURL)   // as the client sends it: client.cURL(for: GetProfile(…))
    /// ```
    public var request: Request { Request(root: body, callbacks: Callbacks()) }
}

extension Endpoint where Output: Decodable {
    /// Decodes the body as JSON; an empty body decodes into ``NoContent``.
    public func decode(_ response: Response, decoder: JSONDecoder) throws(RequestError) -> Output {
        try response.decode(Output.self, decoder: decoder)
    }
}

extension Endpoint where Output == Data {
    /// The body as it came.
    public func decode(_ response: Response, decoder: JSONDecoder) throws(RequestError) -> Data {
        response.body
    }
}

extension Endpoint where Output == String {
    /// The body as text in its charset.
    public func decode(_ response: Response, decoder: JSONDecoder) throws(RequestError) -> String {
        try response.string()
    }
}

extension Endpoint where Output == Json {
    /// The body parsed as JSON.
    public func decode(_ response: Response, decoder: JSONDecoder) throws(RequestError) -> Json {
        try response.json()
    }
}

extension Endpoint where Output == Response {
    /// The whole response.
    public func decode(_ response: Response, decoder: JSONDecoder) throws(RequestError) -> Response {
        response
    }
}

/// The error-body type of an endpoint that declares none: it never decodes, so no error body is attached.
///
/// ```swift
/// struct Ping: Endpoint {
///     typealias Output = String  // ErrorBody defaults to NoErrorBody
///     var body: any RequestComponent { Path("ping") }
/// }
/// ```
public struct NoErrorBody: Sendable, Decodable {
    /// Always fails: an endpoint without an error-body type keeps only the raw body.
    public init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: [], debugDescription: "the endpoint declares no error body type"))
    }
}

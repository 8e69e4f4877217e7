/// The value of a response without a body: a `204 No Content`, or any response whose body is empty.
///
/// Decoding an empty body as `NoContent` succeeds instead of failing on the missing JSON.
///
/// ```swift
/// struct DeleteTodo: Endpoint {
///     typealias Output = NoContent
///     let id: Int
///     var body: any RequestComponent {
///         Method(.delete)
///         Path("todos", id)
///     }
/// }
/// _ = try await client.send(DeleteTodo(id: 1))
/// ```
public struct NoContent: Sendable, Hashable, Decodable, EmptyBodyDecodable {
    /// Creates the empty value.
    ///
    /// ```swift
    /// let nothing = NoContent()
    /// ```
    public init() {}

    /// Decodes from any body, ignoring it.
    public init(from decoder: any Decoder) throws {}

    /// The value an empty body decodes to.
    public static var emptyValue: NoContent { NoContent() }
}

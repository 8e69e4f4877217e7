/// RequestKit: a declarative HTTP client for Swift.
///
/// ```swift
/// let todos = try await AnyRequest<[Todo]> {
///     Url("http://127.0.0.1:8080/todos")
///     Header.Accept(.json)
/// }.value()
/// ```
public enum RequestKit {
    /// The version of the library, sent in the default `User-Agent`.
    public static let version = "0.1.0"
}

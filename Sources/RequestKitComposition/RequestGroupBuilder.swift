import RequestKitDSL
import RequestKitModel

/// The result builder behind `RequestGroup { … }` blocks.
///
/// Like ``RequestBuilder`` it is not generic: every entry becomes `any RequestRepresentable`, so a block of any
/// length type-checks at once. Blocks may use `if`, `if`/`else`, `switch`, `for … in` and `if #available`.
///
/// ```swift
/// let group = RequestGroup {
///     Request { Url("http://127.0.0.1:8080/me") }
///     if includeSettings { Request { Url("http://127.0.0.1:8080/settings") } }
///     for id in ids { Request { Url("http://127.0.0.1:8080/todos/\(id)") } }
/// }
/// ```
@resultBuilder
public enum RequestGroupBuilder {
    /// Accepts one request.
    public static func buildExpression(_ request: any RequestRepresentable) -> [any RequestRepresentable] {
        [request]
    }

    /// Accepts a list of requests built elsewhere.
    public static func buildExpression(_ requests: [any RequestRepresentable]) -> [any RequestRepresentable] {
        requests
    }

    /// Combines the requests of a block, in order.
    public static func buildBlock(_ parts: [any RequestRepresentable]...) -> [any RequestRepresentable] {
        parts.flatMap { $0 }
    }

    /// Supports an `if` without `else`.
    public static func buildOptional(_ part: [any RequestRepresentable]?) -> [any RequestRepresentable] {
        part ?? []
    }

    /// Supports the first branch of an `if`/`else` or `switch`.
    public static func buildEither(first part: [any RequestRepresentable]) -> [any RequestRepresentable] {
        part
    }

    /// Supports the second branch of an `if`/`else` or `switch`.
    public static func buildEither(second part: [any RequestRepresentable]) -> [any RequestRepresentable] {
        part
    }

    /// Supports `for … in` loops.
    public static func buildArray(_ parts: [[any RequestRepresentable]]) -> [any RequestRepresentable] {
        parts.flatMap { $0 }
    }

    /// Supports `if #available`.
    public static func buildLimitedAvailability(_ part: [any RequestRepresentable]) -> [any RequestRepresentable] {
        part
    }
}

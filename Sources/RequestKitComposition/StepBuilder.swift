/// The result builder behind `RequestChain { … }` blocks: a list of ``Step``s, with `if`, `switch` and `for`.
///
/// ```swift
/// let chain = RequestChain {
///     Step("login") { _ in loginRequest }
///     if needsProfile { Step("profile") { previous in try profileRequest(previous) } }
/// }
/// ```
@resultBuilder
public enum StepBuilder {
    /// Accepts one step.
    public static func buildExpression(_ step: Step) -> [Step] { [step] }

    /// Combines the steps of a block, in order.
    public static func buildBlock(_ parts: [Step]...) -> [Step] { parts.flatMap { $0 } }

    /// Supports an `if` without `else`.
    public static func buildOptional(_ part: [Step]?) -> [Step] { part ?? [] }

    /// Supports the first branch of an `if`/`else` or `switch`.
    public static func buildEither(first part: [Step]) -> [Step] { part }

    /// Supports the second branch of an `if`/`else` or `switch`.
    public static func buildEither(second part: [Step]) -> [Step] { part }

    /// Supports `for … in` loops.
    public static func buildArray(_ parts: [[Step]]) -> [Step] { parts.flatMap { $0 } }

    /// Supports `if #available`.
    public static func buildLimitedAvailability(_ part: [Step]) -> [Step] { part }
}

/// The result builder behind `Request { … }` blocks.
///
/// It is not generic: every component becomes `any RequestComponent`, so a block of any length type-checks
/// at once. Blocks may use `if`, `if`/`else`, `switch`, `for … in` and `if #available`.
///
/// ```swift
/// let request = Request {
///     Url("http://127.0.0.1:8080/search")
///     if let token { Header.Authorization(.bearer(token)) }
///     for tag in tags { Query("tag", value: tag) }
///     switch format {
///     case .json: Header.Accept(.json)
///     case .xml: Header.Accept(.xml)
///     }
/// }
/// ```
@resultBuilder
public enum RequestBuilder {
    /// Accepts one component.
    public static func buildExpression(_ component: any RequestComponent) -> any RequestComponent {
        component
    }

    /// Combines the components of a block, in order.
    public static func buildBlock(_ components: any RequestComponent...) -> any RequestComponent {
        components.count == 1 ? components[0] : ComponentList(components: components)
    }

    /// Supports an `if` without `else`.
    public static func buildOptional(_ component: (any RequestComponent)?) -> any RequestComponent {
        component ?? EmptyComponent()
    }

    /// Supports the first branch of an `if`/`else` or `switch`.
    public static func buildEither(first component: any RequestComponent) -> any RequestComponent {
        component
    }

    /// Supports the second branch of an `if`/`else` or `switch`.
    public static func buildEither(second component: any RequestComponent) -> any RequestComponent {
        component
    }

    /// Supports `for … in` loops.
    public static func buildArray(_ components: [any RequestComponent]) -> any RequestComponent {
        ComponentList(components: components)
    }

    /// Supports `if #available`.
    public static func buildLimitedAvailability(_ component: any RequestComponent) -> any RequestComponent {
        component
    }
}

/// Builds the parts of a ``Form`` from a block of ``FormComponent``s, with `if`, `if`/`else` and `for`.
///
/// ```swift
/// Form {
///     Field("title", "Report")
///     if let note { Field("note", note) }
///     for url in attachments { FilePart("attachment", url: url, type: .pdf) }
/// }
/// ```
@resultBuilder
public enum FormBuilder {
    /// One component's parts.
    public static func buildExpression(_ component: any FormComponent) -> [FormPart] {
        component.formParts
    }

    /// The parts of a block, in order.
    public static func buildBlock(_ components: [FormPart]...) -> [FormPart] {
        components.flatMap { $0 }
    }

    /// The parts of an `if` without `else`.
    public static func buildOptional(_ component: [FormPart]?) -> [FormPart] {
        component ?? []
    }

    /// The parts of an `if` branch.
    public static func buildEither(first component: [FormPart]) -> [FormPart] {
        component
    }

    /// The parts of an `else` branch.
    public static func buildEither(second component: [FormPart]) -> [FormPart] {
        component
    }

    /// The parts of a `for` loop.
    public static func buildArray(_ components: [[FormPart]]) -> [FormPart] {
        components.flatMap { $0 }
    }
}

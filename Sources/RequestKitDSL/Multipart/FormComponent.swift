/// Anything that can appear in a ``Form`` block: ``Field``, ``DataPart``, ``FilePart``, or a ``FormPart``.
///
/// ```swift
/// struct Signature: FormComponent {
///     let user: String
///     var formParts: [FormPart] { [FormPart(name: "signed-by", data: Data(user.utf8))] }
/// }
/// ```
public protocol FormComponent: Sendable {
    /// The parts this component adds, in order.
    var formParts: [FormPart] { get }
}

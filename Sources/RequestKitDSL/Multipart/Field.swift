import Foundation

/// A text field of a multipart ``Form``, sent as UTF-8 without a `Content-Type`, as browsers do.
///
/// ```swift
/// Form {
///     Field("title", "Quarterly report")
/// }
/// ```
public struct Field: FormComponent {
    /// The field's name.
    public let name: String
    /// The field's value.
    public let value: String

    /// Creates a text field.
    ///
    /// ```swift
    /// Field("lang", "en")
    /// ```
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    public var formParts: [FormPart] { [FormPart(name: name, data: Data(value.utf8))] }
}

import Foundation
import RequestKitModel

/// A part of a multipart ``Form`` whose bytes are in memory, such as a generated thumbnail.
///
/// ```swift
/// Form {
///     DataPart("thumb", pngData, filename: "t.png", type: .png)
/// }
/// ```
public struct DataPart: FormComponent {
    let part: FormPart

    /// Creates an in-memory part.
    ///
    /// ```swift
    /// DataPart("payload", Data([1, 2, 3]))
    /// ```
    /// - Parameters:
    ///   - name: The form field's name.
    ///   - data: The bytes.
    ///   - filename: The file name to announce, if the part stands for a file.
    ///   - type: The media type; `application/octet-stream` by default.
    public init(_ name: String, _ data: Data, filename: String? = nil, type: MediaType = .octetStream) {
        part = FormPart(name: name, filename: filename, contentType: type, data: data)
    }

    public var formParts: [FormPart] { [part] }
}

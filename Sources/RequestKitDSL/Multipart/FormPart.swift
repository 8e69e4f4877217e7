import Foundation
import RequestKitModel

/// One part of a multipart form: a field name, optionally a file name and media type, and its content.
///
/// ```swift
/// let part = FormPart(name: "avatar", filename: "me.png", contentType: .png, data: pngData)
/// ```
public struct FormPart: FormComponent {
    /// The form field's name.
    public var name: String
    /// The file name sent in `Content-Disposition`, for file uploads.
    public var filename: String?
    /// The media type sent as the part's `Content-Type`; none for plain text fields.
    public var contentType: MediaType?
    let content: RequestBody.Segment

    /// Creates a part from bytes in memory.
    ///
    /// ```swift
    /// FormPart(name: "notes", data: Data("hello".utf8))
    /// ```
    public init(name: String, filename: String? = nil, contentType: MediaType? = nil, data: Data) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.content = .data(data)
    }

    /// Creates a part read from a file as it is sent.
    ///
    /// ```swift
    /// FormPart(name: "file", filename: "report.pdf", contentType: .pdf, file: reportURL)
    /// ```
    public init(name: String, filename: String? = nil, contentType: MediaType? = nil, file: URL) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.content = .file(file)
    }

    public var formParts: [FormPart] { [self] }

    /// The part's header block: `Content-Disposition` with the quoted, escaped names, then `Content-Type`.
    var headerBlock: String {
        var text = "Content-Disposition: form-data; name=\"\(Self.escaped(name))\""
        if let filename { text += "; filename=\"\(Self.escaped(filename))\"" }
        text += "\r\n"
        if let contentType { text += "Content-Type: \(contentType)\r\n" }
        return text + "\r\n"
    }

    /// A name escaped as the HTML standard's form encoding does (`"` as `%22`, CR as `%0D`, LF as `%0A`), and
    /// also `\` as `%5C` (a server reading a quoted-string would take it as an escape) and every other control
    /// character, NUL included, as `%XX`, so a part header is always one line of text.
    static func escaped(_ name: String) -> String {
        var result = ""
        for character in name.unicodeScalars {
            switch character.value {
            case 0x22, 0x5C, 0x00..<0x20, 0x7F:
                result += "%" + String(character.value, radix: 16, uppercase: true).leftPadded(to: 2)
            default:
                result.unicodeScalars.append(character)
            }
        }
        return result
    }
}

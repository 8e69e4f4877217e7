import Foundation
import RequestKitModel

/// A file uploaded by a multipart ``Form``, streamed from disk as it is sent, never loaded whole.
///
/// The part's field is `name`; the file name announced is the file's own unless another is given.
///
/// ```swift
/// Form {
///     FilePart("file", url: URL(fileURLWithPath: "/tmp/q3.pdf"), type: .pdf)
/// }
/// ```
public struct FilePart: FormComponent {
    let part: FormPart

    /// Creates a file part.
    ///
    /// ```swift
    /// FilePart("upload", url: videoURL, filename: "holiday.mp4", type: "video/mp4")
    /// ```
    /// - Parameters:
    ///   - name: The form field's name.
    ///   - url: The file to send.
    ///   - filename: The file name to announce; the URL's last path component by default.
    ///   - type: The media type; `application/octet-stream` by default.
    public init(_ name: String, url: URL, filename: String? = nil, type: MediaType = .octetStream) {
        part = FormPart(name: name, filename: filename ?? url.lastPathComponent, contentType: type, file: url)
    }

    public var formParts: [FormPart] { [part] }
}

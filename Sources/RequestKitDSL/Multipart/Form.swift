import Foundation
import RequestKitModel

/// A `multipart/form-data` body (RFC 7578), written as a block of fields, in-memory parts and files.
///
/// Use it as a request component, or with `Body(form:)`. Files are streamed from disk as the request is sent,
/// so memory stays bounded however large they are; the body has a known length and is sent with
/// `Content-Length`.
///
/// The boundary is `RequestKit-` followed by 32 random letters and digits from the system's secure random
/// generator. A new one is drawn until no in-memory part contains it; file contents are checked while they are
/// streamed, and sending fails with a clear error if a file contains it (with 190 random bits, a practical
/// impossibility unless the file was crafted from this very form).
///
/// ```swift
/// Request {
///     Url("http://127.0.0.1:8080/upload")
///     Method(.post)
///     Form {
///         Field("title", "Report")
///         DataPart("thumb", thumbnail, filename: "t.png", type: .png)
///         FilePart("file", url: reportURL, type: .pdf)
///     }
/// }
/// ```
public struct Form: RequestComponent {
    /// The parts, in order.
    public let parts: [FormPart]
    /// The boundary between parts (without the leading `--`).
    public let boundary: String

    /// Creates a form from a block of parts.
    ///
    /// ```swift
    /// let form = Form { Field("q", "swift") }
    /// ```
    public init(@FormBuilder _ parts: () -> [FormPart]) {
        self.init(parts: parts())
    }

    /// Creates a form from parts.
    ///
    /// ```swift
    /// let form = Form(parts: [FormPart(name: "q", data: Data("swift".utf8))])
    /// ```
    public init(parts: [FormPart]) {
        self.parts = parts
        var boundary = Self.randomBoundary()
        while Self.inMemoryContent(of: parts).contains(where: { $0.range(of: Data(boundary.utf8)) != nil }) {
            boundary = Self.randomBoundary()
        }
        self.boundary = boundary
    }

    /// The `Content-Type` of the body: `multipart/form-data; boundary=…`.
    public var contentType: MediaType {
        MediaType("multipart/form-data", parameters: [(name: "boundary", value: boundary)])
    }

    /// The body: part headers and in-memory content as memory segments, files as file segments.
    ///
    /// ```swift
    /// let body = Form { Field("a", "1") }.body
    /// ```
    public var body: RequestBody {
        var segments: [RequestBody.Segment] = []
        var pending = Data()
        for part in parts {
            pending.append(Data("--\(boundary)\r\n\(part.headerBlock)".utf8))
            switch part.content {
            case .data(let data):
                pending.append(data)
            case .file(let url):
                segments.append(.data(pending))
                segments.append(.file(url))
                pending = Data()
            }
            pending.append(Data("\r\n".utf8))
        }
        pending.append(Data("--\(boundary)--\r\n".utf8))
        segments.append(.data(pending))
        return RequestBody(segments: segments, contentType: contentType, forbiddenFileContent: Data(boundary.utf8))
    }

    public func apply(to parts: inout RequestParts) {
        for problem in problems { parts.report(problem) }
        parts.body = body
    }

    /// What keeps this form from being sent: unreadable files, part media types with control characters.
    var problems: [RequestProblem] {
        var problems: [RequestProblem] = []
        for case .file(let url) in parts.map(\.content)
        where !FileManager.default.isReadableFile(atPath: url.path) || RequestBody.fileSize(url) == nil {
            problems.append(RequestBody.unreadableFileProblem(url))
        }
        for part in parts {
            guard let type = part.contentType?.description,
                let problem = RequestProblem.controlCharacter(
                    in: type, of: "the Content-Type of form part \"\(RequestParts.escaped(part.name))\"")
            else { continue }
            problems.append(problem)
        }
        return problems
    }

    private static func inMemoryContent(of parts: [FormPart]) -> [Data] {
        parts.flatMap { part -> [Data] in
            var content = [Data(part.headerBlock.utf8)]
            if case .data(let data) = part.content { content.append(data) }
            return content
        }
    }

    /// `RequestKit-` and 32 random alphanumerics.
    static func randomBoundary() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        let random = (0..<32).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] }
        return "RequestKit-" + String(random)
    }
}

extension Body {
    /// Sends a multipart form; the same as using the ``Form`` as a component.
    ///
    /// ```swift
    /// Body(form: Form { Field("title", "Report"); FilePart("file", url: reportURL, type: .pdf) })
    /// ```
    public init(form: Form) {
        if let problem = form.problems.first {
            self.init(problem: problem)
        } else {
            self.init(form.body)
        }
    }
}

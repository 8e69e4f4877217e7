import Foundation

/// The body of a request, with the media type to announce when no `Content-Type` is set.
///
/// A body is bytes in memory, a file read from disk as it is sent, or a sequence of both (a multipart form):
/// only in-memory bodies are held in memory.
///
/// ```swift
/// parts.body = RequestBody(Data("hello".utf8), contentType: .text.charset("utf-8"))
/// parts.body = RequestBody(file: URL(fileURLWithPath: "/tmp/video.mp4"), contentType: .octetStream)
/// ```
public struct RequestBody: Sendable {
    /// One piece of a body: bytes in memory or a whole file.
    package enum Segment: Sendable {
        case data(Data)
        case file(URL)
    }

    /// The pieces, sent in order.
    var segments: [Segment]
    /// For multipart bodies: a boundary no file segment may contain (checked while reading).
    var forbiddenFileContent: Data?

    /// The media type sent as `Content-Type` unless the request sets one itself.
    public var contentType: MediaType?

    /// Creates a body from bytes in memory.
    ///
    /// ```swift
    /// let body = RequestBody(Data([1, 2, 3]), contentType: .octetStream)
    /// ```
    public init(_ data: Data, contentType: MediaType?) {
        self.segments = [.data(data)]
        self.contentType = contentType
    }

    /// Creates a body read from a file as it is sent, never loaded whole into memory.
    ///
    /// ```swift
    /// let body = RequestBody(file: URL(fileURLWithPath: "/var/backups/db.tar"), contentType: .octetStream)
    /// ```
    public init(file url: URL, contentType: MediaType? = .octetStream) {
        self.segments = [.file(url)]
        self.contentType = contentType
    }

    package init(segments: [Segment], contentType: MediaType?, forbiddenFileContent: Data? = nil) {
        self.segments = segments
        self.contentType = contentType
        self.forbiddenFileContent = forbiddenFileContent
    }

    /// The bytes of an in-memory body; empty for a body read from files (see ``isInMemory``).
    ///
    /// Setting it replaces the body with these bytes.
    public var data: Data {
        get {
            guard isInMemory else { return Data() }
            var data = Data()
            for case .data(let bytes) in segments { data.append(bytes) }
            return data
        }
        set { segments = [.data(newValue)] }
    }

    /// Whether the whole body is in memory (no part of it is read from a file).
    public var isInMemory: Bool {
        segments.allSatisfy { if case .data = $0 { true } else { false } }
    }

    /// The body's length in bytes, or nil when a file cannot be examined.
    public var length: Int64? {
        var total: Int64 = 0
        for segment in segments {
            switch segment {
            case .data(let bytes): total += Int64(bytes.count)
            case .file(let url):
                guard let size = Self.fileSize(url) else { return nil }
                total += size
            }
        }
        return total
    }

    /// The files the body reads from, in order.
    public var files: [URL] {
        segments.compactMap { if case .file(let url) = $0 { url } else { nil } }
    }

    /// A fresh reader positioned at the start of the body.
    ///
    /// ```swift
    /// let reader = try body.makeReader()
    /// while let block = try reader.read(upTo: 65_536) { output.append(block) }
    /// ```
    /// - Returns: The reader.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` when a file is missing or unreadable.
    public func makeReader() throws(RequestError) -> RequestBodyReader {
        for url in files where !FileManager.default.isReadableFile(atPath: url.path) {
            throw RequestError.invalidRequest([Self.unreadableFileProblem(url)])
        }
        return RequestBodyReader(segments: segments, totalBytes: length, forbiddenFileContent: forbiddenFileContent)
    }

    package static func fileSize(_ url: URL) -> Int64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            attributes[.type] as? FileAttributeType != .typeDirectory
        else { return nil }
        return (attributes[.size] as? NSNumber)?.int64Value
    }

    package static func unreadableFileProblem(_ url: URL) -> RequestProblem {
        RequestProblem(.invalidComponent, "the body file \"\(url.path)\" does not exist or cannot be read")
    }
}

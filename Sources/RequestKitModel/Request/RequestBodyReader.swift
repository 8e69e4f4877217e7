import Foundation

/// Reads a ``RequestBody`` a block at a time, from memory and from files, reporting progress as it goes.
///
/// A reader is used by one thread at a time (a transport's sending loop); make a new one to start over.
/// For a multipart body, file content is checked for the form's boundary while it is read, and reading fails
/// if a file contains it.
///
/// ```swift
/// let reader = try RequestBody(file: fileURL).makeReader()
/// while let block = try reader.read(upTo: 64 * 1024) {
///     try output.write(contentsOf: block)
/// }
/// ```
public final class RequestBodyReader {
    private var segments: ArraySlice<RequestBody.Segment>
    private var file: FileHandle?
    private var offsetInData = 0
    private let forbiddenFileContent: Data?
    private var fileTail = Data()

    /// The bytes read so far.
    public private(set) var completedBytes: Int64 = 0
    /// The body's total length, when known.
    public let totalBytes: Int64?
    /// Called after each block with the bytes read so far.
    public var progressHandler: (@Sendable (TransferProgress) -> Void)?

    init(segments: [RequestBody.Segment], totalBytes: Int64?, forbiddenFileContent: Data?) {
        self.segments = segments[...]
        self.totalBytes = totalBytes
        self.forbiddenFileContent = forbiddenFileContent
    }

    deinit {
        try? file?.close()
    }

    /// The next block of at most `maxCount` bytes, or nil at the end of the body.
    ///
    /// ```swift
    /// let block = try reader.read(upTo: 16_384)
    /// ```
    /// - Parameter maxCount: The largest block to return (at least 1).
    /// - Returns: A non-empty block, or nil when the body is done.
    /// - Throws: ``RequestError`` when a file cannot be read or a multipart file contains the boundary.
    public func read(upTo maxCount: Int) throws(RequestError) -> Data? {
        let maxCount = max(1, maxCount)
        while let segment = segments.first {
            switch segment {
            case .data(let data):
                let remaining = data.count - offsetInData
                guard remaining > 0 else {
                    advance()
                    continue
                }
                let start = data.startIndex + offsetInData
                let count = min(remaining, maxCount)
                offsetInData += count
                return delivered(data.subdata(in: start..<(start + count)))
            case .file(let url):
                let block = try readFile(url, maxCount: maxCount)
                guard let block else {
                    advance()
                    continue
                }
                return delivered(block)
            }
        }
        return nil
    }

    private func advance() {
        segments = segments.dropFirst()
        offsetInData = 0
        try? file?.close()
        file = nil
        fileTail = Data()
    }

    private func delivered(_ block: Data) -> Data {
        completedBytes += Int64(block.count)
        progressHandler?(TransferProgress(completedBytes: completedBytes, totalBytes: totalBytes))
        return block
    }

    private func readFile(_ url: URL, maxCount: Int) throws(RequestError) -> Data? {
        do {
            if file == nil { file = try FileHandle(forReadingFrom: url) }
            guard let block = try file?.read(upToCount: maxCount), !block.isEmpty else { return nil }
            try check(block, of: url)
            return block
        } catch let error as RequestError {
            throw error
        } catch {
            throw RequestError.transport(error, detail: "reading the body file \"\(url.path)\" failed")
        }
    }

    /// Fails when the forbidden content (a multipart boundary) appears in the file, across block edges too.
    private func check(_ block: Data, of url: URL) throws(RequestError) {
        guard let forbidden = forbiddenFileContent, !forbidden.isEmpty else { return }
        var window = fileTail
        window.append(block)
        if window.range(of: forbidden) != nil {
            throw RequestError.invalidRequest([
                RequestProblem(
                    .bodyEncodingFailed,
                    "the file \"\(url.path)\" contains the multipart boundary; send the form again for a new one")
            ])
        }
        fileTail = window.suffix(forbidden.count - 1)
    }
}

import RequestKitModel

#if canImport(CNghttp2)
import Foundation

/// A request body an ``HTTP2Session`` sends: bytes in memory, or a reader of a ``RequestBody`` (files included),
/// read as the stream's flow control allows.
///
/// ```swift
/// let stream = try session.request(head, body: .reader(try RequestBody(file: upload).makeReader()))
/// ```
package enum HTTP2RequestBody {
    /// Bytes in memory, `sent` of them already sent.
    case bytes(Data, sent: Int = 0)
    /// A body read a block at a time.
    case reader(RequestBodyReader)

    /// The next block of at most `count` bytes, and whether the body ends with it.
    ///
    /// - Throws: ``RequestError`` when the reader cannot read (a file gone, a multipart file with the boundary).
    mutating func next(upTo count: Int) throws(RequestError) -> (Data, isLast: Bool) {
        switch self {
        case .bytes(let bytes, let sent):
            let end = min(bytes.count, sent + count)
            let start = bytes.startIndex + sent
            self = .bytes(bytes, sent: end)
            return (bytes.subdata(in: start..<(bytes.startIndex + end)), end == bytes.count)
        case .reader(let reader):
            guard let block = try reader.read(upTo: count) else { return (Data(), true) }
            let isLast = reader.totalBytes.map { reader.completedBytes >= $0 } ?? false
            return (block, isLast)
        }
    }
}
#endif

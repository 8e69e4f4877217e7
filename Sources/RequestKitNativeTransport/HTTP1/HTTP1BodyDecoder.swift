import Foundation

/// Takes a response body off the wire as it arrives: a known length, chunked transfer coding (with trailers,
/// which are read and dropped), or everything until the connection closes.
///
/// ``decode(_:into:)`` consumes what it can from the bytes received so far and reports how many it used; bytes
/// of an incomplete chunk-size line or trailer stay with the caller until more arrive. Every size is checked
/// against ``Limits`` before any arithmetic, so a hostile server cannot overflow a counter or make the client
/// buffer without bound. Depends only on Foundation so that the fuzzer can compile it on its own.
struct HTTP1BodyDecoder: Sendable {
    /// Bounds on what a server may send in a body.
    struct Limits: Sendable, Equatable {
        /// The longest chunk-size line, extensions included.
        var maxChunkLineBytes = 4096
        /// The largest single chunk.
        var maxChunkSize = 1 << 40
        /// The largest trailer section.
        var maxTrailerBytes = 64 * 1024
        /// The largest decoded body.
        var maxBodyBytes = Int.max
    }

    private enum State: Sendable, Equatable {
        case length(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(consumed: Int)
        case untilClose
        case done
    }

    private var state: State
    private let limits: Limits
    /// Whether the body ends only when the server closes the connection (also once it has ended).
    let endsWithClose: Bool
    private(set) var bodyBytes = 0

    /// A decoder for a body framed as `framing` says.
    init(framing: ResponseHead.Framing, limits: Limits = Limits()) {
        self.limits = limits
        endsWithClose = framing == .untilClose
        switch framing {
        case .none: state = .done
        case .length(let count): state = count == 0 ? .done : .length(remaining: count)
        case .chunked: state = .chunkSize
        case .untilClose: state = .untilClose
        }
    }

    /// Whether the whole body has been read.
    var isComplete: Bool { state == .done }

    /// Whether the body ends only when the server closes the connection.
    var isDelimitedByClose: Bool { state == .untilClose }

    /// Decodes as much of `input` as possible, appending body bytes to `body`.
    ///
    /// - Returns: How many bytes of `input` were used; the rest must be offered again with more bytes after them.
    /// - Throws: ``HTTP1ParseError`` for malformed chunk framing or a size over a limit.
    mutating func decode(_ input: UnsafeRawBufferPointer, into body: inout Data) throws(HTTP1ParseError) -> Int {
        var position = 0
        while position < input.count {
            switch state {
            case .done:
                return position
            case .untilClose:
                let count = input.count - position
                try append(input, position, count, to: &body)
                position += count
            case .length(let remaining):
                let count = min(remaining, input.count - position)
                try append(input, position, count, to: &body)
                position += count
                state = remaining == count ? .done : .length(remaining: remaining - count)
            case .chunkData(let remaining):
                let count = min(remaining, input.count - position)
                try append(input, position, count, to: &body)
                position += count
                state = remaining == count ? .chunkDataEnd : .chunkData(remaining: remaining - count)
            case .chunkDataEnd:
                guard let lineEnd = Self.lineEnd(in: input, from: position, limit: 2) else {
                    if input.count - position >= 2 { throw .invalidChunkTerminator }
                    return position
                }
                guard lineEnd.contentEnd == position else { throw .invalidChunkTerminator }
                position = lineEnd.next
                state = .chunkSize
            case .chunkSize:
                guard let lineEnd = Self.lineEnd(in: input, from: position, limit: limits.maxChunkLineBytes) else {
                    if input.count - position > limits.maxChunkLineBytes { throw .invalidChunkSize }
                    return position
                }
                let size = try chunkSize(input, position..<lineEnd.contentEnd)
                position = lineEnd.next
                state = size == 0 ? .trailers(consumed: 0) : .chunkData(remaining: size)
            case .trailers(let consumed):
                guard let lineEnd = Self.lineEnd(in: input, from: position, limit: Int.max) else {
                    if consumed + input.count - position > limits.maxTrailerBytes { throw .trailersTooLarge }
                    return position
                }
                let total = consumed + lineEnd.next - position
                guard total <= limits.maxTrailerBytes else { throw .trailersTooLarge }
                let isEmptyLine = lineEnd.contentEnd == position
                position = lineEnd.next
                state = isEmptyLine ? .done : .trailers(consumed: total)
            }
        }
        return position
    }

    /// Reports the end of the connection: fine for a body delimited by close, an error otherwise.
    ///
    /// - Throws: ``HTTP1ParseError/truncatedBody`` when the body was not complete.
    mutating func finishAtEndOfStream() throws(HTTP1ParseError) {
        switch state {
        case .done: return
        case .untilClose: state = .done
        default: throw .truncatedBody
        }
    }

    private mutating func append(
        _ input: UnsafeRawBufferPointer, _ start: Int, _ count: Int, to body: inout Data
    ) throws(HTTP1ParseError) {
        guard count > 0 else { return }
        guard count <= limits.maxBodyBytes - bodyBytes else { throw .bodyTooLarge }
        bodyBytes += count
        body.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[start..<(start + count)]))
    }

    private func chunkSize(_ input: UnsafeRawBufferPointer, _ line: Range<Int>) throws(HTTP1ParseError) -> Int {
        var size = 0
        var digits = 0
        var index = line.lowerBound
        while index < line.upperBound {
            let byte = input[index]
            let digit: Int
            switch byte {
            case 0x30...0x39: digit = Int(byte - 0x30)
            case 0x41...0x46: digit = Int(byte - 0x41 + 10)
            case 0x61...0x66: digit = Int(byte - 0x61 + 10)
            default: digit = -1
            }
            if digit < 0 { break }
            guard size <= (limits.maxChunkSize - digit) / 16 else { throw .chunkSizeTooLarge }
            size = size * 16 + digit
            digits += 1
            index += 1
        }
        guard digits > 0 else { throw .invalidChunkSize }
        // What may follow the digits: whitespace and extensions (";name=value"), which are ignored.
        while index < line.upperBound, input[index] == 0x20 || input[index] == 0x09 { index += 1 }
        guard index == line.upperBound || input[index] == 0x3B else { throw .invalidChunkSize }
        for position in index..<line.upperBound {
            let byte = input[position]
            guard byte >= 0x20 || byte == 0x09, byte != 0x7F else { throw .invalidChunkSize }
        }
        return size
    }

    /// The end of the line starting at `start`: where its content ends (before CR LF or a bare LF) and where
    /// the next line starts; `nil` when no LF arrived within `limit` bytes.
    private static func lineEnd(
        in input: UnsafeRawBufferPointer, from start: Int, limit: Int
    ) -> (contentEnd: Int, next: Int)? {
        guard let base = input.baseAddress, start < input.count else { return nil }
        let searched = min(input.count - start, limit)
        guard let found = memchr(base + start, 0x0A, searched) else { return nil }
        let newline = base.distance(to: UnsafeRawPointer(found))
        let contentEnd = newline > start && input[newline - 1] == 0x0D ? newline - 1 : newline
        return (contentEnd, newline + 1)
    }
}

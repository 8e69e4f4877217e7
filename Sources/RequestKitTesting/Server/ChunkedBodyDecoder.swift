import Foundation

/// Reads a `Transfer-Encoding: chunked` request body and its trailer fields.
///
/// ```swift
/// let (body, trailers) = try ChunkedBodyDecoder(reader: reader, configuration: configuration).decode()
/// ```
struct ChunkedBodyDecoder {
    let reader: ConnectionReader
    let configuration: TestServer.Configuration

    /// Decodes chunks up to the last one, then the trailers.
    ///
    /// - Throws: ``HTTPRequestError`` for a malformed or oversized body, ``ConnectionEnd/needMore`` when it has not all arrived.
    func decode() throws -> (Data, [(name: String, value: String)]) {
        var body = Data()
        let tooLong = HTTPRequestError(status: 400, message: "chunk size line is too long")
        while true {
            let line = try reader.readLine(limit: 1024, tooLong: tooLong)
            let size = try Self.chunkSize(from: line)
            if size == 0 { break }
            guard body.count + size <= configuration.maxBodyBytes else {
                throw HTTPRequestError(
                    status: 413, message: "chunked request body exceeds \(configuration.maxBodyBytes) bytes")
            }
            body.append(contentsOf: try reader.read(count: size))
            let end = try reader.read(count: 2)
            guard end.elementsEqual([13, 10]) else {
                throw HTTPRequestError(status: 400, message: "chunk data is not followed by CRLF")
            }
        }
        var budget = configuration.maxHeaderBytes
        let tooLarge = HTTPRequestError(
            status: 431, message: "trailer section is larger than \(configuration.maxHeaderBytes) bytes")
        let trailers = try HTTPRequestHead.readFields(from: reader, budget: &budget, tooLarge: tooLarge)
        return (body, trailers)
    }

    /// The size from a chunk-size line such as `1a` or `1a;name=value`.
    static func chunkSize(from line: ArraySlice<UInt8>) throws -> Int {
        let digits = line.prefix { TestRequest.hexValue($0) != nil }
        let rest = line.dropFirst(digits.count).drop { $0 == 32 || $0 == 9 }
        guard !digits.isEmpty, digits.count <= 15, rest.isEmpty || rest.first == UInt8(ascii: ";") else {
            throw HTTPRequestError(
                status: 400, message: "invalid chunk size \"\(String(decoding: line.prefix(40), as: UTF8.self))\"")
        }
        return digits.reduce(0) { $0 << 4 | Int(TestRequest.hexValue($1) ?? 0) }
    }
}

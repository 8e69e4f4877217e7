import RequestKitModel

#if canImport(CNghttp2)
import Foundation
import RequestKitHTTP2

extension HTTP2RequestHead {
    /// The HTTP/2 head of a request whose HTTP/1.1 head ``HTTP1RequestEncoder`` wrote: a job carries one encoding of
    /// its request, and a connection that turns out to speak HTTP/2 reads it back. The request line gives `:method`
    /// and `:path`, `Host` gives `:authority`; the other fields follow, lower-cased, without the connection-specific
    /// ones (the body's framing is HTTP/2's own).
    ///
    /// ```swift
    /// let head = try HTTP2RequestHead(http1Head: Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8), scheme: "https")
    /// ```
    /// - Throws: ``RequestError`` when the bytes are not such a head (the request line is not origin-form).
    init(http1Head bytes: [UInt8], scheme: String) throws(RequestError) {
        // One pass over the bytes, each line read where it lies: no array of lines, no copies of them.
        guard !bytes.isEmpty else { throw Self.unreadable("it is empty") }
        var start = 0
        let requestLine = Self.line(in: bytes, from: &start)
        // Three parts, each space-separated: method, target, version.
        guard let firstSpace = bytes[requestLine].firstIndex(of: 0x20),
            let secondSpace = bytes[(firstSpace + 1)..<requestLine.upperBound].firstIndex(of: 0x20),
            !bytes[(secondSpace + 1)..<requestLine.upperBound].contains(0x20),
            secondSpace > firstSpace + 1, bytes[firstSpace + 1] == UInt8(ascii: "/")
        else { throw Self.unreadable("its request line is not in origin form") }
        let method = String(decoding: bytes[requestLine.lowerBound..<firstSpace], as: UTF8.self)
        let path = String(decoding: bytes[(firstSpace + 1)..<secondSpace], as: UTF8.self)
        var authority = ""
        var headers = HTTPHeaders()
        while start < bytes.count {
            let line = Self.line(in: bytes, from: &start)
            if line.isEmpty { continue }
            guard let colon = bytes[line].firstIndex(of: UInt8(ascii: ":")) else {
                throw Self.unreadable("a header line has no colon")
            }
            var valueStart = colon + 1
            while valueStart < line.upperBound, bytes[valueStart] == 0x20 || bytes[valueStart] == 0x09 {
                valueStart += 1
            }
            let value = String(decoding: bytes[valueStart..<line.upperBound], as: UTF8.self)
            let name = bytes[line.lowerBound..<colon]
            if HTTPSyntax.equalsIgnoringCase(name, "host".utf8) {
                authority = value
            } else {
                headers.add(String(decoding: name, as: UTF8.self), value)
            }
        }
        self.init(method: method, scheme: scheme, authority: authority, path: path, headers: headers)
    }

    /// The line of `bytes` that starts at `start`, without its line feed and a carriage return before it; `start`
    /// moves past the line feed (to the end when there is none).
    private static func line(in bytes: [UInt8], from start: inout Int) -> Range<Int> {
        let lineFeed = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
        var end = lineFeed
        if end > start, bytes[end - 1] == 0x0D { end -= 1 }
        defer { start = min(lineFeed + 1, bytes.count) }
        return start..<end
    }

    private static func unreadable(_ reason: String) -> RequestError {
        RequestError.transport(POSIXError(.EINVAL), detail: "the request head cannot go over HTTP/2: \(reason)")
    }
}
#endif

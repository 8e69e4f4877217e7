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
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? line.dropLast() : line
        }
        guard !lines.isEmpty else { throw Self.unreadable("it is empty") }
        let requestLine = lines.removeFirst().split(separator: 0x20, omittingEmptySubsequences: false)
        guard requestLine.count == 3, let target = requestLine.dropFirst().first, target.first == UInt8(ascii: "/")
        else { throw Self.unreadable("its request line is not in origin form") }
        let method = String(decoding: requestLine[0], as: UTF8.self)
        var authority = ""
        var headers = HTTPHeaders()
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw Self.unreadable("a header line has no colon")
            }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self)
            var value = line[line.index(after: colon)...]
            while value.first == 0x20 || value.first == 0x09 { value = value.dropFirst() }
            let text = String(decoding: value, as: UTF8.self)
            if HTTPSyntax.equalsIgnoringCase(name, "host") {
                authority = text
            } else {
                headers.add(name, text)
            }
        }
        self.init(
            method: method, scheme: scheme, authority: authority, path: String(decoding: target, as: UTF8.self),
            headers: headers)
    }

    private static func unreadable(_ reason: String) -> RequestError {
        RequestError.transport(POSIXError(.EINVAL), detail: "the request head cannot go over HTTP/2: \(reason)")
    }
}
#endif

import Foundation

/// The scheme, host and port of an absolute `http` or `https` URL in the plain form nearly every request uses, read
/// from its text in one pass: `http://` or `https://` (in any case), a host of ASCII letters, digits, `-`, `.`, `_`
/// and `~`, an optional port of one to five digits, then the end of the URL or a `/`, `?` or `#`.
///
/// Any other form (credentials, percent-encoding, an IP-v6 literal, an empty port, a URL relative to a base) gives
/// nil, and Foundation's accessors, which read every form, decide instead. For the plain form they give the same
/// scheme, host and port, at several times the cost: each reads and copies parts of the URL's text again.
///
/// ```swift
/// if let url = URL(string: "http://127.0.0.1:8080/todos"), let authority = PlainURLAuthority(url) {
///     print(authority.host, authority.port ?? 80)  // 127.0.0.1 8080
/// }
/// ```
package struct PlainURLAuthority: Sendable, Equatable {
    /// Whether the scheme is `https`.
    package let isSecure: Bool
    /// The host, as written.
    package let host: String
    /// The port, when the URL names one; at most 99,999, so a caller still checks its range.
    package let port: Int?

    /// The authority of `url`; nil when `url` is not an absolute http or https URL in the plain form.
    package init?(_ url: URL) {
        guard url.baseURL == nil else { return nil }
        var text = url.absoluteString
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    private init(isSecure: Bool, host: String, port: Int?) {
        self.isSecure = isSecure
        self.host = host
        self.port = port
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> PlainURLAuthority? {
        // "http" in any case, an optional "s", then "://".
        guard bytes.count > 7, bytes[0] | 0x20 == UInt8(ascii: "h"), bytes[1] | 0x20 == UInt8(ascii: "t"),
            bytes[2] | 0x20 == UInt8(ascii: "t"), bytes[3] | 0x20 == UInt8(ascii: "p")
        else { return nil }
        var index = 4
        let isSecure = bytes[index] | 0x20 == UInt8(ascii: "s")
        if isSecure { index += 1 }
        guard index + 3 <= bytes.count, bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"),
            bytes[index + 2] == UInt8(ascii: "/")
        else { return nil }
        index += 3
        let hostStart = index
        while index < bytes.count, HTTPSyntax.isUnreserved(bytes[index]) { index += 1 }
        guard index > hostStart else { return nil }
        let host = String(decoding: UnsafeBufferPointer(rebasing: bytes[hostStart..<index]), as: UTF8.self)
        var port: Int?
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            let portStart = index
            var value = 0
            while index < bytes.count, index - portStart < 5, bytes[index] &- UInt8(ascii: "0") < 10 {
                value = value * 10 + Int(bytes[index] &- UInt8(ascii: "0"))
                index += 1
            }
            guard index > portStart else { return nil }
            port = value
        }
        guard
            index == bytes.count || bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?")
                || bytes[index] == UInt8(ascii: "#")
        else { return nil }
        return PlainURLAuthority(isSecure: isSecure, host: host, port: port)
    }
}

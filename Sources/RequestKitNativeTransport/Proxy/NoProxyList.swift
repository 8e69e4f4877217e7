import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The hosts a `no_proxy` value sends straight to their origin, matched as curl 7.88 matches them.
///
/// The value is a list of patterns separated by commas or blanks; `*` alone matches every host. For a host
/// name, a pattern matches the name itself and every name below it on a label boundary (`example.com` matches
/// `www.example.com`, not `notexample.com`), ignoring case and one leading or trailing dot on either side; `*.`
/// and `:port` have no special meaning (such a pattern matches nothing). For an IPv4 address, a pattern is an
/// address or a range (`10.0.0.0/8`, 1 to 32 bits; a prefix of 0 compares the whole address); for an IPv6
/// address, an address (`::1` matches `[0:0:0:0:0:0:0:1]`), never a range, since curl 7.88 matches no IPv6 range.
/// `localhost` and loopback addresses are matched like any other name or address: an empty list proxies them.
///
/// ```swift
/// let list = NoProxyList("localhost, .internal, 10.0.0.0/8")
/// list.matches(host: "api.internal")  // true
/// ```
struct NoProxyList: Sendable, Hashable, CustomStringConvertible {
    /// The value as given.
    let text: String

    init(_ text: String) {
        self.text = text
    }

    var isEmpty: Bool { text.isEmpty }

    var description: String { text }

    /// The patterns, in order.
    var patterns: [Substring] {
        text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" })
    }

    /// Whether requests to `host` (a name, an IPv4 address, or an IPv6 address with or without brackets) go
    /// straight to their origin.
    func matches(host: String) -> Bool {
        guard !text.isEmpty, !host.isEmpty else { return false }
        if text == "*" { return true }
        var name = Substring(host)
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            name = name[name.index(after: name.startIndex)..<close]
            guard let address = Self.ipv6(name) else { return false }
            return patterns.contains { pattern in
                !pattern.contains("/") && Self.ipv6(pattern) == address
            }
        }
        if let address = Self.ipv4(name) {
            return patterns.contains { Self.matches(address, pattern: $0) }
        }
        if let address = Self.ipv6(name) {
            return patterns.contains { pattern in !pattern.contains("/") && Self.ipv6(pattern) == address }
        }
        if name.hasSuffix(".") { name = name.dropLast() }
        return patterns.contains { Self.matches(name: name, pattern: $0) }
    }

    /// A host name against one pattern: equal, or a suffix starting after a dot, ignoring case and the pattern's
    /// trailing and leading dot.
    private static func matches(name: Substring, pattern: Substring) -> Bool {
        var pattern = pattern
        if pattern.hasSuffix(".") { pattern = pattern.dropLast() }
        if pattern.hasPrefix(".") { pattern = pattern.dropFirst() }
        let nameBytes = Array(name.utf8)
        let patternBytes = Array(pattern.utf8)
        if patternBytes.count > nameBytes.count { return false }
        let start = nameBytes.count - patternBytes.count
        if start > 0, nameBytes[start - 1] != UInt8(ascii: ".") { return false }
        if start == 0, patternBytes.isEmpty { return false }
        for (offset, byte) in patternBytes.enumerated() where lowercase(nameBytes[start + offset]) != lowercase(byte) {
            return false
        }
        return true
    }

    /// An IPv4 address (in network order, as a number) against an address or a `/bits` range.
    private static func matches(_ address: UInt32, pattern: Substring) -> Bool {
        var network = pattern
        var bits = 0
        if let slash = pattern.firstIndex(of: "/") {
            network = pattern[..<slash]
            bits = leadingNumber(pattern[pattern.index(after: slash)...])
        }
        guard bits <= 32, let check = ipv4(network) else { return false }
        guard bits != 0, bits != 32 else { return address == check }
        let mask = UInt32.max << UInt32(32 - bits)
        return (address ^ check) & mask == 0
    }

    /// The number at the start of `text`, as `atoi` reads it (0 when there is none, capped to stay an `Int`).
    private static func leadingNumber(_ text: Substring) -> Int {
        var value = 0
        for character in text {
            guard let digit = character.wholeNumberValue, character.isASCII else { break }
            value = min(value * 10 + digit, 1 << 20)
        }
        return value
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }

    /// A dotted-quad IPv4 address, as `inet_pton` reads it, or nil.
    static func ipv4(_ text: Substring) -> UInt32? {
        var address = in_addr()
        guard inet_pton(AF_INET, String(text), &address) == 1 else { return nil }
        return UInt32(bigEndian: address.s_addr)
    }

    /// The 16 bytes of an IPv6 address, as `inet_pton` reads it, or nil.
    static func ipv6(_ text: Substring) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, String(text), &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }
}

import Foundation

/// Fixed addresses for host names and ports, used instead of asking the resolver: curl's `--resolve`. For a
/// transport's configuration (``NativeTransport/Configuration/dnsOverrides``) or one request's (``Resolve``, or
/// ``TransferRequest/dnsOverrides``, which take precedence): a server before its DNS record exists, a test against a
/// staging address with the production name (so TLS checks the real certificate name), one host of a round-robin
/// name.
///
/// ```swift
/// var overrides = DNSOverrides()
/// try overrides.add("api.example.com:443:192.0.2.7,[2001:db8::7]")   // curl's syntax
/// overrides.set(host: "cdn.example.com", port: 443, to: [SocketAddress(ip: "192.0.2.9", port: 443)].compactMap { $0 })
/// ```
public struct DNSOverrides: Sendable, Hashable {
    private var table: [Key: [SocketAddress]] = [:]

    private struct Key: Sendable, Hashable {
        let host: String
        let port: Int
    }

    /// No overrides.
    ///
    /// ```swift
    /// var overrides = DNSOverrides()
    /// ```
    public init() {}

    /// Overrides written as curl's `--resolve` takes them, `host:port:address[,address]...`.
    ///
    /// ```swift
    /// let overrides = try DNSOverrides(["api.example.com:443:192.0.2.7", "localhost:8080:[::1]"])
    /// ```
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` naming every entry that is not of
    ///   that form.
    public init(_ entries: [String]) throws(RequestError) {
        var problems: [RequestProblem] = []
        for entry in entries {
            do throws(RequestError) {
                try add(entry)
            } catch {
                problems += error.problems
            }
        }
        if !problems.isEmpty { throw .invalidRequest(problems) }
    }

    /// Whether there are none.
    ///
    /// ```swift
    /// if overrides.isEmpty { print("the resolver answers for every host") }
    /// ```
    public var isEmpty: Bool { table.isEmpty }

    /// Connects to `addresses` for `host` and `port` (replacing an earlier override of them); the addresses' own
    /// ports are kept, so one can lead elsewhere. An empty list removes the override.
    ///
    /// ```swift
    /// overrides.set(host: "api.example.com", port: 443, to: [SocketAddress(ip: "192.0.2.7", port: 443)].compactMap { $0 })
    /// ```
    public mutating func set(host: String, port: Int, to addresses: [SocketAddress]) {
        table[Key(host: host.lowercased(), port: port)] = addresses.isEmpty ? nil : addresses
    }

    /// Adds an override written as curl's `--resolve` takes it: `host:port:address[,address]...`, IPv6 addresses in
    /// brackets or bare.
    ///
    /// ```swift
    /// try overrides.add("api.example.com:443:192.0.2.7,[2001:db8::7]")
    /// ```
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` when the entry has no host, a port
    ///   outside 1...65535, or an address that is not numeric.
    public mutating func add(_ entry: String) throws(RequestError) {
        func invalid(_ why: String) -> RequestError {
            .invalidRequest([RequestProblem(.invalidDNSOverride, "The DNS override \"\(entry)\" \(why)")])
        }
        let fields = entry.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3 else { throw invalid("is not host:port:address[,address]") }
        let host = String(fields[0])
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "/" || $0 == "[" }) else {
            throw invalid("has no valid host")
        }
        guard let port = Int(fields[1]), (1...65535).contains(port) else {
            throw invalid("has no port from 1 to 65535")
        }
        var addresses: [SocketAddress] = []
        for item in fields[2].split(separator: ",", omittingEmptySubsequences: false) {
            var text = item.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
            guard let address = SocketAddress(ip: text, port: port) else {
                throw invalid("has \"\(item)\", which is not a numeric IPv4 or IPv6 address")
            }
            addresses.append(address)
        }
        set(host: host, port: port, to: addresses)
    }

    /// The addresses that replace the resolver's answer for `host` and `port`; nil when it is not overridden.
    ///
    /// ```swift
    /// let fixed = overrides.addresses(host: "api.example.com", port: 443)
    /// ```
    public func addresses(host: String, port: Int) -> [SocketAddress]? {
        table[Key(host: host.lowercased(), port: port)]
    }

    /// These overrides with `other`'s on top: a request's over its client's.
    ///
    /// ```swift
    /// let effective = clientOverrides.merging(requestOverrides)
    /// ```
    public func merging(_ other: DNSOverrides) -> DNSOverrides {
        var merged = self
        merged.table.merge(other.table) { _, new in new }
        return merged
    }
}

/// A request's DNS overrides (``Resolve``), which the pipeline hands the transport as
/// ``TransferRequest/dnsOverrides``.
package enum DNSOverridesKey: RequestOptionKey {
    package static let defaultValue = DNSOverrides()
}

extension RequestProblem.Kind {
    /// A DNS override that is not `host:port:address[,address]...` with numeric addresses, or one the transport
    /// cannot honour (``URLSessionTransport`` connects through URLSession's own resolver).
    ///
    /// ```swift
    /// if error.problems.first?.kind == .invalidDNSOverride { print("check the override") }
    /// ```
    public static let invalidDNSOverride = Self("invalidDNSOverride")
}

import Foundation
import RequestKit

/// How replay decides that a sent request is a recorded one.
///
/// By default two requests match when they have the same method, scheme, host, port and path, the same query items
/// in any order (as a multiset: a repeated item counts), and the same body (JSON bodies compared as JSON, so key
/// order and spacing do not count; a body sent from a file by its digest and size). Headers are not compared
/// unless named.
///
/// ```swift
/// var matching = ReplayMatching()
/// matching.ignoredQueryItems = ["timestamp"]
/// matching.headers = .named("Accept", "X-Tenant")
/// matching.matcher = { recorded, sent in recorded.headers["X-Version"] == sent.headers["X-Version"] }
/// ```
public struct ReplayMatching: Sendable {
    /// Which headers two requests must agree on.
    ///
    /// ```swift
    /// matching.headers = .all(except: "Date", "X-Request-ID")
    /// ```
    public struct Headers: Sendable, Hashable {
        let names: Set<String>
        let isExclusion: Bool

        /// No header is compared (the default).
        public static let none = Headers(names: [], isExclusion: false)

        /// The headers named (case-insensitively) must have the same values.
        ///
        /// ```swift
        /// matching.headers = .named("Accept")
        /// ```
        public static func named(_ names: String...) -> Headers {
            Headers(names: Set(names.map { $0.lowercased() }), isExclusion: false)
        }

        /// Every header must have the same values, except those named (case-insensitively).
        ///
        /// ```swift
        /// matching.headers = .all(except: "User-Agent")
        /// ```
        public static func all(except names: String...) -> Headers {
            Headers(names: Set(names.map { $0.lowercased() }), isExclusion: true)
        }

        func includes(_ name: String) -> Bool {
            names.contains(name.lowercased()) != isExclusion
        }
    }

    /// Query items (by name, case-sensitively) left out of the comparison: a timestamp, a nonce.
    public var ignoredQueryItems: Set<String>
    /// The headers compared; none by default.
    public var headers: Headers
    /// Whether bodies are compared; true by default.
    public var comparesBodies: Bool
    /// A further test, applied after the others: both must pass. It gets the recorded request and the sent one,
    /// both redacted.
    public var matcher: (@Sendable (_ recorded: RecordedRequest, _ sent: RecordedRequest) -> Bool)?

    /// The default matching, with the changes given.
    ///
    /// ```swift
    /// let matching = ReplayMatching(ignoredQueryItems: ["nonce"])
    /// ```
    /// - Parameters:
    ///   - ignoredQueryItems: Query items left out.
    ///   - headers: The headers compared.
    ///   - comparesBodies: Whether bodies are compared.
    ///   - matcher: A further test.
    public init(
        ignoredQueryItems: Set<String> = [], headers: Headers = .none, comparesBodies: Bool = true,
        matcher: (@Sendable (_ recorded: RecordedRequest, _ sent: RecordedRequest) -> Bool)? = nil
    ) {
        self.ignoredQueryItems = ignoredQueryItems
        self.headers = headers
        self.comparesBodies = comparesBodies
        self.matcher = matcher
    }

    /// How `sent` differs from `recorded`, one line per difference; empty when they match.
    func differences(recorded: RecordedRequest, sent: RecordedRequest) -> [String] {
        var differences: [String] = []
        func compare(_ what: String, _ left: String, _ right: String) {
            if left != right { differences.append("\(what): recorded \(left), sent \(right)") }
        }
        compare("method", recorded.method.uppercased(), sent.method.uppercased())
        let left = URLComponents(url: recorded.url, resolvingAgainstBaseURL: false)
        let right = URLComponents(url: sent.url, resolvingAgainstBaseURL: false)
        compare("scheme", left?.scheme?.lowercased() ?? "", right?.scheme?.lowercased() ?? "")
        compare("host", left?.host?.lowercased() ?? "", right?.host?.lowercased() ?? "")
        compare("port", Self.port(of: left), Self.port(of: right))
        compare("path", Self.path(of: left), Self.path(of: right))
        compare("query", query(of: left), query(of: right))
        for name in headerNames(recorded.headers, sent.headers) {
            compare(
                "header \(name)", recorded.headers.values(for: name).joined(separator: ", "),
                sent.headers.values(for: name).joined(separator: ", "))
        }
        if comparesBodies, !Self.sameBody(recorded, sent) {
            compare("body", Self.describeBody(recorded), Self.describeBody(sent))
        }
        if differences.isEmpty, let matcher, !matcher(recorded, sent) {
            differences.append("the custom matcher refused it")
        }
        return differences
    }

    private static func port(of components: URLComponents?) -> String {
        if let port = components?.port { return String(port) }
        switch components?.scheme?.lowercased() {
        case "http": return "80"
        case "https": return "443"
        default: return ""
        }
    }

    private static func path(of components: URLComponents?) -> String {
        let path = components?.percentEncodedPath ?? ""
        return path.isEmpty ? "/" : path
    }

    /// The query items as a sorted multiset, without the ignored ones, each decoded.
    private func query(of components: URLComponents?) -> String {
        let items = (components?.percentEncodedQueryItems ?? []).compactMap { item -> String? in
            let name = item.name.removingPercentEncoding ?? item.name
            guard !ignoredQueryItems.contains(name) else { return nil }
            guard let value = item.value else { return name }
            return "\(name)=\(value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value)"
        }
        return items.sorted().joined(separator: "&")
    }

    private func headerNames(_ left: HTTPHeaders, _ right: HTTPHeaders) -> [String] {
        if headers == .none { return [] }
        let names = Set(left.fields.map { $0.name.lowercased() } + right.fields.map { $0.name.lowercased() })
            .union(headers.isExclusion ? [] : headers.names)
        return names.filter(headers.includes).sorted()
    }

    private static func sameBody(_ left: RecordedRequest, _ right: RecordedRequest) -> Bool {
        if left.fileDigest != nil || right.fileDigest != nil { return left.fileDigest == right.fileDigest }
        if left.body == right.body { return true }
        guard let leftJSON = try? Json(parsing: left.body), let rightJSON = try? Json(parsing: right.body) else {
            return false
        }
        return leftJSON == rightJSON
    }

    private static func describeBody(_ request: RecordedRequest) -> String {
        if let digest = request.fileDigest { return "a file of \(digest.size) bytes, \(digest.sha256)" }
        guard !request.body.isEmpty else { return "no body" }
        guard let text = String(data: request.body, encoding: .utf8) else { return "\(request.body.count) bytes" }
        let shown = text.count > 200 ? String(text.prefix(200)) + "…" : text
        return "\(request.body.count) bytes \(shown.debugDescription)"
    }
}

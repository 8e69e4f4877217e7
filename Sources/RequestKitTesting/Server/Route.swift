import Foundation

/// A custom route: a path pattern, an optional method, and the handler that answers matching requests.
///
/// Patterns are matched segment by segment against the raw request path (without the query):
/// - a literal segment must match exactly (`/users`);
/// - `{name}` matches any one non-empty segment and captures it, percent-decoded, in
///   ``TestRequest/pathParameters`` (`/users/{id}`);
/// - a final segment ending in `*` matches any segment starting with the text before `*` plus any number of
///   further segments (`/files/*` matches `/files/`, `/files/a` and `/files/a/b`, but not `/files`).
///
/// ```swift
/// let route = Route(pattern: "/users/{id}", method: "GET") { request in .text(request.pathParameters["id"] ?? "") }
/// ```
struct Route: Sendable {
    let pattern: String
    let method: String?
    let handler: @Sendable (TestRequest) -> TestResponse
    private let segments: [Substring]

    init(pattern: String, method: String?, handler: @escaping @Sendable (TestRequest) -> TestResponse) {
        self.pattern = pattern
        self.method = method
        self.handler = handler
        self.segments = pattern.split(separator: "/", omittingEmptySubsequences: false)
    }

    /// The captured parameters when `path` matches the pattern, otherwise `nil`.
    func match(path: String) -> [String: String]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            if isLast, segment.hasSuffix("*") {
                guard index < parts.count, parts[index].hasPrefix(segment.dropLast()) else { return nil }
                return parameters
            }
            guard index < parts.count else { return nil }
            let part = parts[index]
            if segment.hasPrefix("{"), segment.hasSuffix("}"), segment.count >= 2 {
                guard !part.isEmpty else { return nil }
                let name = String(segment.dropFirst().dropLast())
                parameters[name] = String(part).removingPercentEncoding ?? String(part)
            } else if segment != part {
                return nil
            }
        }
        return parts.count == segments.count ? parameters : nil
    }

    /// Whether this route accepts `method` (routes without a method accept all).
    func accepts(method requestMethod: String) -> Bool {
        method.map { $0.caseInsensitiveEquals(requestMethod) } ?? true
    }
}

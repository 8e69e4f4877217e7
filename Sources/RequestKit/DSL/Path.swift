/// Appends path segments to the URL. Each value is one segment: a `/` inside it is encoded, not a separator.
///
/// ```swift
/// Url("http://127.0.0.1:8080/api")
/// Path("users", userID, "posts")                    // /api/users/42/posts
/// Path("files", "a/b c")                            // /api/files/a%2Fb%20c
/// Path(template: "/profile/{user_id}", ["user_id": "ann"])
/// ```
public struct Path: RequestComponent {
    private let segments: Checked<[String]>

    /// Appends one segment per value, each percent-encoded.
    ///
    /// ```swift
    /// Path("users", 42)
    /// ```
    public init(_ segments: any CustomStringConvertible & Sendable...) {
        self.segments = .valid(segments.map { HTTPSyntax.percentEncoded($0.description) })
    }

    /// Appends a path written with `/` separators and `{name}` placeholders, each replaced by the
    /// percent-encoded value of that name. A placeholder without a value is reported when the request is built.
    ///
    /// ```swift
    /// Path(template: "/repos/{owner}/{repo}/issues", ["owner": "apple", "repo": "swift"])
    /// ```
    public init(template: String, _ values: [String: any CustomStringConvertible & Sendable] = [:]) {
        var result: [String] = []
        var missing: [String] = []
        for rawSegment in template.split(separator: "/", omittingEmptySubsequences: true) {
            var segment = ""
            var rest = rawSegment[...]
            while let open = rest.firstIndex(of: "{") {
                segment += rest[..<open]
                guard let close = rest[open...].firstIndex(of: "}") else {
                    segment += rest[open...]
                    rest = rest[rest.endIndex...]
                    break
                }
                let name = String(rest[rest.index(after: open)..<close])
                if let value = values[name] {
                    segment += HTTPSyntax.percentEncoded(value.description)
                } else {
                    missing.append(name)
                }
                rest = rest[rest.index(after: close)...]
            }
            segment += rest
            result.append(segment)
        }
        if missing.isEmpty {
            segments = .valid(result)
        } else {
            let names = missing.map { "{\($0)}" }.joined(separator: ", ")
            segments = .invalid(
                RequestProblem(.invalidComponent, "the path template \"\(template)\" has no value for \(names)"))
        }
    }

    public func apply(to parts: inout RequestParts) {
        switch segments {
        case .valid(let segments): parts.pathSegments += segments
        case .invalid(let problem): parts.report(problem)
        }
    }
}

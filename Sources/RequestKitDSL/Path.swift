import RequestKitModel

/// Appends path segments to the URL. Each value is one segment: a `/` inside it is encoded, not a separator,
/// and a value that is `.` or `..` is sent as `%2E` or `%2E%2E`, so it cannot climb out of the path.
///
/// ```swift
/// Url("http://127.0.0.1:8080/api")
/// Path("users", userID, "posts")                    // /api/users/42/posts
/// Path("files", "a/b c")                            // /api/files/a%2Fb%20c
/// Path("files", "..", "admin")                      // /api/files/%2E%2E/admin
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
        self.segments = .valid(segments.map { HTTPSyntax.pathSegment($0.description) })
    }

    /// Appends a path written with `/` separators and `{name}` placeholders, each replaced by the
    /// percent-encoded value of that name. A segment made only of values that spells `.` or `..` is encoded
    /// (`%2E`, `%2E%2E`). A placeholder without a value is reported when the request is built.
    ///
    /// ```swift
    /// Path(template: "/repos/{owner}/{repo}/issues", ["owner": "apple", "repo": "swift"])
    /// ```
    public init(template: String, _ values: [String: any CustomStringConvertible & Sendable] = [:]) {
        var result: [String] = []
        var missing: [String] = []
        for rawSegment in template.split(separator: "/", omittingEmptySubsequences: true) {
            var segment = ""
            var hasValue = false
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
                    hasValue = true
                } else {
                    missing.append(name)
                }
                rest = rest[rest.index(after: close)...]
            }
            segment += rest
            result.append(hasValue ? HTTPSyntax.dotSegmentEncoded(segment) : segment)
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

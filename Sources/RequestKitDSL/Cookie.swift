import RequestKitModel

/// Sends a cookie. Every `Cookie` and `Cookies` component of a request is joined into one `Cookie` header,
/// in order, after any cookie header set earlier.
///
/// ```swift
/// Cookie("session", "abc123")
/// Cookie("theme", "dark")        // Cookie: session=abc123; theme=dark
/// ```
public struct Cookie: RequestComponent {
    /// The cookie's name.
    public let name: String
    /// The cookie's value.
    public let value: String

    /// Sends one cookie. A name or value holding `;`, `,` or `=` (in the name) is reported when the request is
    /// built.
    ///
    /// ```swift
    /// Cookie("session", token)
    /// ```
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    public func apply(to parts: inout RequestParts) {
        Self.append([(name, value)], to: &parts)
    }

    /// Adds pairs to the request's `Cookie` header, reporting invalid ones.
    static func append(_ pairs: [(String, String)], to parts: inout RequestParts) {
        var valid: [String] = []
        for (name, value) in pairs {
            guard HTTPSyntax.isToken(name), !value.contains(where: { $0 == ";" || $0 == "," || $0 == "\"" }) else {
                parts.report(RequestProblem(.invalidComponent, "the cookie \"\(name)\" has an invalid name or value"))
                continue
            }
            valid.append("\(name)=\(value)")
        }
        guard !valid.isEmpty else { return }
        let joined = valid.joined(separator: "; ")
        if let existing = parts.headers["Cookie"], !existing.isEmpty {
            parts.headers.set("Cookie", existing + "; " + joined)
        } else {
            parts.headers.set("Cookie", joined)
        }
    }
}

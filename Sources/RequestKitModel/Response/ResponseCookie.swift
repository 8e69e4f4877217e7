import Foundation

/// A cookie a server set with `Set-Cookie` (RFC 6265): its name and value and the attributes that scope it.
///
/// ```swift
/// let cookies = ResponseCookie.parseAll("session=abc; Path=/; HttpOnly")
/// cookies[0].name      // "session"
/// cookies[0].isHTTPOnly  // true
/// ```
public struct ResponseCookie: Sendable, Hashable, CustomStringConvertible {
    /// The cookie's name.
    public var name: String
    /// The cookie's value, without surrounding quotes.
    public var value: String
    /// The `Domain` attribute, lowercased and without a leading dot, when present.
    public var domain: String?
    /// The `Path` attribute, when present.
    public var path: String?
    /// The `Expires` attribute, when present and valid.
    public var expires: Date?
    /// The `Max-Age` attribute in seconds, when present and valid.
    public var maxAge: Int?
    /// Whether the cookie is only sent over HTTPS.
    public var isSecure: Bool
    /// Whether scripts may not read the cookie.
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute, when present.
    public var sameSite: String?

    /// Creates a cookie.
    ///
    /// ```swift
    /// let cookie = ResponseCookie(name: "theme", value: "dark", path: "/")
    /// ```
    public init(
        name: String, value: String, domain: String? = nil, path: String? = nil, expires: Date? = nil,
        maxAge: Int? = nil, isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: String? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.expires = expires
        self.maxAge = maxAge
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
    }

    /// `name=value`, as sent back in a `Cookie` header.
    public var description: String { "\(name)=\(value)" }

    /// Parses one `Set-Cookie` field value. Returns nil when it has no `name=value` pair.
    ///
    /// ```swift
    /// let cookie = ResponseCookie(setCookie: "id=a3fWa; Max-Age=2592000")
    /// ```
    public init?(setCookie field: String) {
        var attributes = field.split(separator: ";", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let pair = attributes.removeFirst()
        guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else { return nil }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        var value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
            value = String(value.dropFirst().dropLast())
        }
        guard !name.isEmpty else { return nil }
        self.init(name: name, value: value)
        for attribute in attributes where !attribute.isEmpty {
            let parts = attribute.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let argument = parts.count > 1 ? parts[1] : ""
            switch parts[0].lowercased() {
            case "domain":
                let domain = argument.lowercased().drop { $0 == "." }
                self.domain = domain.isEmpty ? nil : String(domain)
            case "path": path = argument.hasPrefix("/") ? argument : nil
            case "expires": expires = HTTPDateFormat.date(from: argument)
            case "max-age": maxAge = Int(argument)
            case "secure": isSecure = true
            case "httponly": isHTTPOnly = true
            case "samesite": sameSite = argument
            default: break
            }
        }
    }

    /// Parses a `Set-Cookie` value that may hold several cookies joined with commas, as FoundationNetworking
    /// does when it merges repeated `Set-Cookie` fields. A comma inside an `Expires` date does not split.
    ///
    /// ```swift
    /// ResponseCookie.parseAll("a=1; Path=/, b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT").map(\.name)  // ["a", "b"]
    /// ```
    public static func parseAll(_ field: String) -> [ResponseCookie] {
        var pieces: [String] = []
        var current = ""
        var index = field.startIndex
        while index < field.endIndex {
            let character = field[index]
            if character == ",", startsCookie(field[field.index(after: index)...]) {
                pieces.append(current)
                current = ""
            } else {
                current.append(character)
            }
            index = field.index(after: index)
        }
        pieces.append(current)
        return pieces.compactMap { ResponseCookie(setCookie: $0) }
    }

    /// Whether text after a comma begins a new `name=value` pair (a token followed by `=`).
    private static func startsCookie(_ rest: Substring) -> Bool {
        let trimmed = rest.drop { $0 == " " }
        guard let equals = trimmed.firstIndex(of: "=") else { return false }
        let name = trimmed[..<equals]
        return !name.isEmpty && name.allSatisfy { $0 != " " && $0 != ";" && $0 != "," }
    }
}

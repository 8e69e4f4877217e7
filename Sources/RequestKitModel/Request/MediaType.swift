/// A media type such as `application/json`: an open set with common types as static members.
///
/// ```swift
/// Header.Accept(.json)
/// Header.ContentType(.custom("application/vnd.api+json"))
/// Header.ContentType(.text.charset("utf-8"))
/// ```
public struct MediaType: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The type and subtype, lowercased: `application/json`.
    public let essence: String
    /// Parameters such as `charset`, with lowercased names, in order.
    public let parameterList: [(name: String, value: String)]

    /// Creates a media type from its essence and parameters.
    ///
    /// ```swift
    /// let type = MediaType("text/csv", parameters: [("charset", "utf-8")])
    /// ```
    public init(_ essence: String, parameters: [(name: String, value: String)] = []) {
        self.essence = essence.lowercased()
        self.parameterList = parameters.map { (name: $0.name.lowercased(), value: $0.value) }
    }

    /// Creates a media type from a string literal such as `"text/csv"`.
    ///
    /// ```swift
    /// let csv: MediaType = "text/csv"
    /// ```
    public init(stringLiteral value: String) { self.init(parsing: value) }

    /// Parses a `Content-Type` value such as `text/html; charset=ISO-8859-1`.
    ///
    /// ```swift
    /// MediaType(parsing: "application/json; charset=utf-8").essence  // "application/json"
    /// ```
    public init(parsing value: String) {
        let pieces = value.split(separator: ";", omittingEmptySubsequences: false)
        let essence = pieces.first.map { $0.trimmingHTTPWhitespace() } ?? ""
        var parameters: [(name: String, value: String)] = []
        for piece in pieces.dropFirst() {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            let name = piece[..<equals].trimmingHTTPWhitespace()
            var parameterValue = piece[piece.index(after: equals)...].trimmingHTTPWhitespace()
            if parameterValue.count >= 2, parameterValue.hasPrefix("\""), parameterValue.hasSuffix("\"") {
                parameterValue = String(parameterValue.dropFirst().dropLast())
            }
            parameters.append((name: name, value: parameterValue))
        }
        self.init(essence, parameters: parameters)
    }

    /// A custom media type.
    ///
    /// ```swift
    /// Header.Accept(.custom("application/problem+json"))
    /// ```
    public static func custom(_ value: String) -> Self { Self(parsing: value) }

    /// The parameters as a dictionary with lowercased names.
    public var parameters: [String: String] {
        Dictionary(parameterList.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// A copy with a `charset` parameter.
    ///
    /// ```swift
    /// Header.ContentType(.text.charset("utf-8"))
    /// ```
    public func charset(_ name: String) -> Self {
        Self(essence, parameters: parameterList.filter { $0.name != "charset" } + [(name: "charset", value: name)])
    }

    /// Whether this type is JSON: `application/json` or any `+json` suffix.
    public var isJSON: Bool { essence == "application/json" || essence.hasSuffix("+json") }

    public var description: String {
        parameterList.reduce(essence) { "\($0); \($1.name)=\($1.value)" }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.essence == rhs.essence && lhs.parameterList.elementsEqual(rhs.parameterList) { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(essence)
        for parameter in parameterList {
            hasher.combine(parameter.name)
            hasher.combine(parameter.value)
        }
    }

    /// `application/json`.
    public static let json = Self("application/json")
    /// `application/xml`.
    public static let xml = Self("application/xml")
    /// `text/plain`.
    public static let text = Self("text/plain")
    /// `text/html`.
    public static let html = Self("text/html")
    /// `text/css`.
    public static let css = Self("text/css")
    /// `text/javascript`.
    public static let javascript = Self("text/javascript")
    /// `text/event-stream`.
    public static let eventStream = Self("text/event-stream")
    /// `application/x-www-form-urlencoded`.
    public static let formURLEncoded = Self("application/x-www-form-urlencoded")
    /// `multipart/form-data`.
    public static let multipartFormData = Self("multipart/form-data")
    /// `application/octet-stream`.
    public static let octetStream = Self("application/octet-stream")
    /// `image/png`.
    public static let png = Self("image/png")
    /// `image/jpeg`.
    public static let jpeg = Self("image/jpeg")
    /// `image/gif`.
    public static let gif = Self("image/gif")
    /// `image/webp`.
    public static let webp = Self("image/webp")
    /// `application/pdf`.
    public static let pdf = Self("application/pdf")
    /// `*/*`: any type.
    public static let any = Self("*/*")
}

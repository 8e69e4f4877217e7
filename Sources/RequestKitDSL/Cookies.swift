import RequestKitModel

/// Sends several cookies, joined into the request's one `Cookie` header (a dictionary is sorted by name).
///
/// ```swift
/// Cookies(["a": "1", "b": "2"])   // Cookie: a=1; b=2
/// Cookies([("z", "26"), ("a", "1")])
/// ```
public struct Cookies: RequestComponent {
    /// The cookies, in the order they are sent.
    public let pairs: [(name: String, value: String)]

    /// Sends the cookies of a dictionary, sorted by name.
    ///
    /// ```swift
    /// Cookies(["session": "abc"])
    /// ```
    public init(_ cookies: [String: String]) {
        pairs = cookies.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    }

    /// Sends cookies in the order given.
    ///
    /// ```swift
    /// Cookies([("b", "2"), ("a", "1")])
    /// ```
    public init(_ pairs: [(String, String)]) {
        self.pairs = pairs.map { (name: $0.0, value: $0.1) }
    }

    public func apply(to parts: inout RequestParts) {
        Cookie.append(pairs.map { ($0.name, $0.value) }, to: &parts)
    }
}

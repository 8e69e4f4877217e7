/// A cookie of a HAR request or response, as browsers list them beside the `Cookie` and `Set-Cookie` headers.
struct HARCookie: Codable, Sendable {
    var name: String
    var value: String
    var path: String?
    var domain: String?
    var expires: String?
    var httpOnly: Bool?
    var secure: Bool?
    var comment: String?
}

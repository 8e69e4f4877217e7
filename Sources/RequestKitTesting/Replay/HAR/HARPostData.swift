/// A HAR request's body. HAR keeps it as text; RequestKit adds `_encoding: "base64"` for a binary body, `_file` for
/// a body kept in a side file next to the cassette, and `_sha256` with `_size` for a body sent from a file, which
/// is recorded by digest and size rather than content.
struct HARPostData: Codable, Sendable {
    /// A field of a form body, as browsers list them beside `text`.
    struct Param: Codable, Sendable {
        var name: String
        var value: String?
        var fileName: String?
        var contentType: String?
        var comment: String?
    }

    var mimeType: String
    var params: [Param]?
    var text: String?
    var comment: String?
    var encoding: String?
    var file: String?
    var sha256: String?
    var size: Int?

    enum CodingKeys: String, CodingKey {
        case mimeType, params, text, comment
        case encoding = "_encoding"
        case file = "_file"
        case sha256 = "_sha256"
        case size = "_size"
    }
}

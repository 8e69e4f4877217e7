/// A HAR response's body, as delivered (after any `Content-Encoding` is undone): `text`, base64 when `encoding`
/// says so. `size` is the length delivered; `compression` how many bytes the encoding saved on the wire. RequestKit
/// adds `_file`, a side file next to the cassette holding a large body.
struct HARContent: Codable, Sendable {
    var size: Int
    var compression: Int?
    var mimeType: String
    var text: String?
    var encoding: String?
    var comment: String?
    var file: String?

    enum CodingKeys: String, CodingKey {
        case size, compression, mimeType, text, encoding, comment
        case file = "_file"
    }
}

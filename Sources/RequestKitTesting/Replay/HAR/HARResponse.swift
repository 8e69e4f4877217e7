/// A HAR entry's response: status, headers and the body (`content`). RequestKit adds `_chunks`, how a streamed
/// body arrived.
struct HARResponse: Codable, Sendable {
    var status: Int
    var statusText: String
    var httpVersion: String
    var cookies: [HARCookie]
    var headers: [HARNameValue]
    var content: HARContent
    var redirectURL: String
    var headersSize: Int
    var bodySize: Int
    var comment: String?
    var chunks: [HARChunk]?

    enum CodingKeys: String, CodingKey {
        case status, statusText, httpVersion, cookies, headers, content, redirectURL, headersSize, bodySize, comment
        case chunks = "_chunks"
    }
}

/// A HAR entry's request: the method, the full URL, headers, query items and the body (`postData`).
struct HARRequest: Codable, Sendable {
    var method: String
    var url: String
    var httpVersion: String
    var cookies: [HARCookie]
    var headers: [HARNameValue]
    var queryString: [HARNameValue]
    var postData: HARPostData?
    var headersSize: Int
    var bodySize: Int
    var comment: String?
}

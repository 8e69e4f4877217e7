/// One exchange of a HAR file: the request, the response and its timings.
///
/// RequestKit's own fields: `_repeat` (when true, replay answers every further matching request with this entry
/// once the earlier ones are used) and `_failure` (the request failed; the response is a placeholder with status 0,
/// as browsers write one for a failed request, unless the failure came while the body was arriving). A WebSocket
/// handshake's entry keeps the connection's messages in `_webSocketMessages`, as browsers' HAR export does.
struct HAREntry: Codable, Sendable {
    var pageref: String?
    var startedDateTime: String
    var time: Double
    var request: HARRequest
    var response: HARResponse
    var cache: HARCache
    var timings: HARTimings
    var serverIPAddress: String?
    var connection: String?
    var comment: String?
    var repeats: Bool?
    var failure: HARFailure?
    var webSocketMessages: [HARWebSocketMessage]?

    enum CodingKeys: String, CodingKey {
        case pageref, startedDateTime, time, request, response, cache, timings, serverIPAddress, connection, comment
        case repeats = "_repeat"
        case failure = "_failure"
        case webSocketMessages = "_webSocketMessages"
    }
}

/// One chunk of a streamed response body as it arrived: its size in bytes and when, in milliseconds after the
/// response head. The bytes themselves are the entry's `content`, cut in order.
struct HARChunk: Codable, Sendable {
    var size: Int
    var time: Double
}

/// A page of a browser's HAR file, which entries refer to with `pageref`. RequestKit reads pages and keeps them, and
/// never writes any of its own.
struct HARPage: Codable, Sendable {
    /// A page's load timings, in milliseconds; -1 or absent when unknown.
    struct Timings: Codable, Sendable {
        var onContentLoad: Double?
        var onLoad: Double?
        var comment: String?
    }

    var startedDateTime: String
    var id: String
    var title: String
    var pageTimings: Timings
    var comment: String?
}

/// A HAR file's `log`: who wrote it, the pages (browsers group requests by page) and the entries in order.
struct HARLog: Codable, Sendable {
    var version: String
    var creator: HARCreator
    var browser: HARCreator?
    var pages: [HARPage]?
    var entries: [HAREntry]
    var comment: String?

    /// An empty log written by RequestKit.
    static func empty() -> HARLog {
        HARLog(version: "1.2", creator: HARCreator(name: "RequestKit", version: "1"), entries: [])
    }
}

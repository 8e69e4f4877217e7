/// A HAR entry's `cache` object; RequestKit writes it empty, and ignores what browsers put in it.
struct HARCache: Codable, Sendable {
    var comment: String?
}

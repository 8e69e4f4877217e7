/// A header or query item of a HAR entry: `{"name": …, "value": …}`.
struct HARNameValue: Codable, Sendable, Hashable {
    var name: String
    var value: String
    var comment: String?
}

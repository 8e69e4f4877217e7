/// The application that wrote a HAR file (`creator`), or the browser it came from (`browser`).
struct HARCreator: Codable, Sendable {
    var name: String
    var version: String
    var comment: String?
}

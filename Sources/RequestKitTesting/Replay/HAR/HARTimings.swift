/// How long each phase of an exchange took, in milliseconds; -1 for a phase that does not apply.
struct HARTimings: Codable, Sendable {
    var blocked: Double?
    var dns: Double?
    var connect: Double?
    var send: Double
    var wait: Double
    var receive: Double
    var ssl: Double?
    var comment: String?
}

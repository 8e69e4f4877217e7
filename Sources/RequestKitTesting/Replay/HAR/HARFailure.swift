/// A failed exchange, kept so that replay throws the same `RequestError`: its kind, detail and the connection
/// or TLS failure it names. `duringBody` is true when the head had arrived and the body stream failed.
struct HARFailure: Codable, Sendable {
    var kind: String
    var detail: String?
    var connectionFailure: String?
    var tlsFailure: String?
    var duringBody: Bool?
}

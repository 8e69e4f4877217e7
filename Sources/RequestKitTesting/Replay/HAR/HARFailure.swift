import RequestKit

/// A failed exchange, kept so that replay throws the same `RequestError`: its kind, detail and the connection
/// or TLS failure it names. `duringBody` is true when the head had arrived and the body stream failed.
struct HARFailure: Codable, Sendable {
    var kind: String
    var detail: String?
    var connectionFailure: String?
    var tlsFailure: String?
    var duringBody: Bool?
}

extension HARFailure {
    /// The failure `error` stands for.
    init(_ error: RequestError, duringBody: Bool) {
        self.init(
            kind: error.kind.name, detail: error.detail, connectionFailure: error.connectionFailure?.name,
            tlsFailure: error.tlsFailure?.name, duringBody: duringBody ? true : nil)
    }
}

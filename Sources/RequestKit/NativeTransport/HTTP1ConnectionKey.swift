import Foundation

/// The host and port that a pool of connections serves.
struct HTTP1ConnectionKey: Sendable, Hashable {
    var host: String
    var port: Int
}

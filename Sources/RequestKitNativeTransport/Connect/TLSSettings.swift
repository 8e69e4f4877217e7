import Foundation
import RequestKitSockets

/// A ``TLSConfiguration`` as connection keys hold it: shared, not copied, and hashed once.
///
/// A transport makes one when it is made, and every `https` key of its pool refers to it, so a key is copied with
/// one reference and two keys of the pool compare by identity; settings made apart still compare by value.
///
/// ```swift
/// let settings = TLSSettings(.default)
/// let key = ConnectionKey(host: "example.com", port: 443, tls: settings)
/// ```
final class TLSSettings: Sendable, Hashable {
    /// The configuration.
    let configuration: TLSConfiguration
    private let hash: Int

    /// Settings for `configuration`.
    init(_ configuration: TLSConfiguration) {
        self.configuration = configuration
        hash = configuration.hashValue
    }

    static func == (lhs: TLSSettings, rhs: TLSSettings) -> Bool {
        lhs === rhs || (lhs.hash == rhs.hash && lhs.configuration == rhs.configuration)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}

import Foundation

/// The connections whose server picked HTTP/2 for a WebSocket without allowing extended CONNECT (RFC 8441), as a
/// transport remembers them for its life: a later socket that prefers HTTP/2 to the same origin (same host, port,
/// TLS settings and proxy) offers HTTP/1.1 only, and costs one connection instead of two. Browsers remember a
/// protocol an origin does not speak in the same way.
///
/// ```swift
/// let refusals = ExtendedConnectRefusals()
/// refusals.insert(key)                  // the server's SETTINGS did not allow extended CONNECT
/// if !refusals.contains(key) { offerHTTP2() }
/// ```
final class ExtendedConnectRefusals: @unchecked Sendable {
    // Safe: `keys` is only touched under `lock`.
    private let lock = NSLock()
    private var keys: Set<ConnectionKey> = []

    /// Whether `key`'s server refused extended CONNECT before.
    func contains(_ key: ConnectionKey) -> Bool {
        lock.withLock { keys.contains(key) }
    }

    /// Remembers that `key`'s server refused extended CONNECT.
    func insert(_ key: ConnectionKey) {
        _ = lock.withLock { keys.insert(key) }
    }
}

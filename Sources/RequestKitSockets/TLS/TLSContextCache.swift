#if canImport(COpenSSL)
import Foundation

/// The process-wide ``TLSContext`` per ``TLSConfiguration``: one `SSL_CTX` (and one session table) per distinct
/// configuration, made on first use and kept, so connections neither reload trust stores nor lose their sessions.
///
/// ```swift
/// let context = try TLSContextCache.shared.context(for: configuration)
/// ```
final class TLSContextCache: @unchecked Sendable {
    /// The cache every ``TLSByteStream`` uses.
    static let shared = TLSContextCache()

    // Safe to share: `contexts` is only touched under `lock`, and contexts are thread-safe themselves.
    private let lock = NSLock()
    private var contexts: [TLSConfiguration: TLSContext] = [:]

    /// The context for `configuration`, made now if this is its first use.
    ///
    /// - Throws: ``TLSContext/Problem`` when the configuration cannot be used (it is not cached, so a fixed file is
    ///   read again next time).
    func context(for configuration: TLSConfiguration) throws -> TLSContext {
        try lock.withLock {
            if let context = contexts[configuration] { return context }
            let context = try TLSContext(configuration: configuration)
            contexts[configuration] = context
            return context
        }
    }
}
#endif

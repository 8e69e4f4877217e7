import Foundation
import RequestKitNativeTransport

/// Runs blocking or CPU-heavy test work (socket reads, hashing megabytes, generating payloads) on a thread of its
/// own, so that it never holds one of the cooperative pool's few threads while the suite's other tests wait to run.
///
/// When the system refuses the thread, the call throws the `POSIXError` rather than waiting forever (see
/// ``DetachedThread``).
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        do {
            try DetachedThread.start(name: "RequestKitTests.offThePool") {
                continuation.resume(with: Result { try work() })
            }
        } catch {
            continuation.resume(throwing: error)
        }
    }
}

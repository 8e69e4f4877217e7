import Foundation

/// Runs blocking or CPU-heavy test work (socket reads, hashing megabytes, generating payloads) on a thread of its
/// own, so that it never holds one of the cooperative pool's few threads while the suite's other tests wait to run.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

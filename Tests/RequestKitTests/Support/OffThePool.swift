import Foundation

/// Runs CPU-heavy test work (hashing megabytes, generating payloads) on a thread of its own, so that it never
/// holds one of the cooperative pool's few threads while the suite's other tests wait to run.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}

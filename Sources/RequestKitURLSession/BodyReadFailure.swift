import Foundation
import RequestKitModel

/// The error that stopped reading a request body, kept so the transfer fails with it rather than with the
/// transport's generic "aborted" error.
final class BodyReadFailure: @unchecked Sendable {
    // Safe: `error` is only read and written while holding `lock`.
    private let lock = NSLock()
    private var error: RequestError?

    func record(_ error: RequestError) {
        lock.withLock { if self.error == nil { self.error = error } }
    }

    var recorded: RequestError? { lock.withLock { error } }
}

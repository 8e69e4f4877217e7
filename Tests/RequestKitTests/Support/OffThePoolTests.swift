import Foundation
import RequestKitTestSupport
import Testing

@Suite("Test support: work off the cooperative pool")
struct OffThePoolTests {
    @Test("offThePool returns the work's value, and rethrows its error")
    func valuesAndErrors() async throws {
        #expect(try await offThePool { 6 * 7 } == 42)
        await #expect(throws: CocoaError.self) { try await offThePool { throw CocoaError(.fileNoSuchFile) } }
    }

    #if os(Linux)
    /// A child process limits its address space to a little over what it maps already, so that a thread's stack
    /// cannot be mapped: Foundation's `Thread.start()` would then do nothing, and the caller would wait forever.
    @Test(
        "When the system refuses a thread, offThePool throws instead of waiting forever",
        .enabled(if: AddressSpaceLimit.isUsable, "the thread sanitizer cannot run with a limited address space"))
    func refusedThread() async {
        await #expect(processExitsWith: .success) {
            // Were the work lost, the child would wait forever: the alarm ends it, failing the test.
            alarm(120)
            guard AddressSpaceLimit.restrict(headroom: (4 << 20)) else { exit(3) }
            do {
                _ = try await offThePool { 1 }
                exit(4)
            } catch let failure as POSIXError {
                exit(failure.code == .EAGAIN ? 0 : 5)
            } catch {
                exit(6)
            }
        }
    }
    #endif
}

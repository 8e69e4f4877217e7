import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    @Test("When the system refuses a thread, offThePool throws instead of waiting forever")
    func refusedThread() async {
        await #expect(processExitsWith: .success) {
            // Were the work lost, the child would wait forever: the alarm ends it, failing the test.
            alarm(120)
            let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
            guard let pages = statm.split(separator: " ").first.flatMap({ Int($0) }) else { exit(2) }
            var limit = rlimit(rlim_cur: rlim_t(pages * Int(getpagesize()) + (4 << 20)), rlim_max: rlim_t.max)
            guard setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0 else { exit(3) }
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

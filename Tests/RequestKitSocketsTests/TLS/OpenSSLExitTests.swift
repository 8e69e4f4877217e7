#if canImport(COpenSSL)
import COpenSSL
import Foundation
import RequestKitTesting
import Testing

@testable import RequestKitSockets

/// OpenSSL's global state outlives `exit()`: the event loops and the server's loops keep running while a process
/// exits, and one that is closing a TLS connection then (a kept-alive connection its server closes as the process
/// ends) would otherwise take a lock OpenSSL's exit handler has just freed, and end the process with SIGSEGV.
@Suite("OpenSSL at exit")
struct OpenSSLExitTests {
    /// What uses OpenSSL first in the process.
    enum FirstUse: String, CaseIterable, Codable, Sendable, CustomTestStringConvertible {
        /// The client's TLS context, as the first https request makes it.
        case client
        /// A ``TestServer`` in its TLS mode.
        case server

        var testDescription: String { rawValue }
    }

    @Test(
        "After RequestKit's first use of OpenSSL, exit() leaves OpenSSL's state in place",
        arguments: FirstUse.allCases)
    func stateOutlivesExit(_ firstUse: FirstUse) async {
        await #expect(processExitsWith: .success) {
            [firstUse] in
            // Registered before OpenSSL's own handler (if it registers one), so it runs after it: exit handlers run
            // in the reverse order of their registration. OpenSSL refuses to initialise again once it has cleaned up.
            atexit {
                if OPENSSL_init_crypto(0, nil) != 1 { _exit(70) }
            }
            do {
                switch firstUse {
                case .client:
                    _ = try TLSContextCache.shared.context(for: TLSConfiguration())
                case .server:
                    try TestServer { $0.tls = TestServer.TLS() }.stop()
                }
            } catch {
                Issue.record("OpenSSL was not used: \(error)")
            }
            exit(0)
        }
    }
}
#endif

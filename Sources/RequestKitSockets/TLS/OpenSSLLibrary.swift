#if canImport(COpenSSL)
import COpenSSL

/// OpenSSL's process-wide set-up, which every `SSL_CTX` of RequestKit's (``TLSContext``, and TestServer's) is made
/// after: ``initialize()`` runs `OPENSSL_init_ssl` once, with `OPENSSL_INIT_NO_ATEXIT`.
///
/// Left to itself, OpenSSL frees its global state (its locks, algorithm tables and error strings) in an `atexit`
/// handler. `exit()` does not stop the other threads first: an event loop that is reading, writing or closing a TLS
/// connection at that moment (a kept-alive connection its server closes as the process ends, say) then takes a lock
/// OpenSSL has just freed, and the process ends with SIGSEGV instead of its exit status. Without the handler, that
/// state lives until the process is gone, and the system reclaims it.
///
/// The first initialisation of OpenSSL in a process decides: when another library in the process (libcurl, through
/// URLSession) used OpenSSL before RequestKit did, OpenSSL's handler is already registered.
///
/// ```swift
/// OpenSSLLibrary.initialize()
/// let context = SSL_CTX_new(TLS_client_method())
/// ```
package enum OpenSSLLibrary {
    /// Initialises OpenSSL without its exit handler, the first time it is called; later calls do nothing.
    package static func initialize() {
        _ = isInitialized
    }

    /// Whether `OPENSSL_init_ssl` succeeded (a failure shows at the `SSL_CTX_new` that follows).
    private static let isInitialized = OPENSSL_init_ssl(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1
}
#endif

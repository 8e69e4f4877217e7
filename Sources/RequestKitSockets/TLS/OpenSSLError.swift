#if canImport(COpenSSL)
import COpenSSL

/// One entry of OpenSSL's error queue: its packed code and its text, kept as a ``RequestError``'s underlying error.
///
/// ```swift
/// let errors = OpenSSLError.drainQueue()  // also leaves the thread's queue empty
/// ```
struct OpenSSLError: Error, Sendable, CustomStringConvertible {
    /// The packed error code (`ERR_get_error`).
    let code: UInt
    /// OpenSSL's full text for it (`ERR_error_string_n`), such as `error:0A000086:SSL routines::certificate verify
    /// failed`.
    let text: String

    var description: String { text }

    /// The reason code within the library (`ERR_GET_REASON`), such as `SSL_R_NO_SHARED_CIPHER`.
    var reason: Int32 { ERR_GET_REASON(code) }

    /// Whether the error comes from the SSL library (not from crypto or the system).
    var isFromSSLLibrary: Bool { ERR_GET_LIB(code) == ERR_LIB_SSL }

    /// The reason alone, as a person reads it: `certificate verify failed`.
    var reasonText: String {
        guard let text = ERR_reason_error_string(code) else { return self.text }
        return String(cString: text)
    }

    init(code: UInt) {
        self.code = code
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Takes every error off the calling thread's OpenSSL error queue, oldest first.
    static func drainQueue() -> [OpenSSLError] {
        var errors: [OpenSSLError] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { return errors }
            errors.append(OpenSSLError(code: code))
        }
    }
}
#endif

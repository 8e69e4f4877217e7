import RequestKitDSL
import RequestKitModel

extension Request: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The request as a curl command with its secrets redacted (``RequestRepresentable/cURL``), so that
    /// `print(request)`, string interpolation and `dump(request)` never show a token or a password.
    ///
    /// ```swift
    /// print(Request { Url("http://127.0.0.1:8080/me?token=abc"); Header.Authorization(.bearer("abc")) })
    /// // curl 'http://127.0.0.1:8080/me?token=<redacted>' -H 'Authorization: <redacted>'
    /// ```
    public var description: String { cURL }

    /// The same as ``description``.
    public var debugDescription: String { cURL }

    /// What `dump(request)` shows: the redacted curl command.
    public var customMirror: Mirror { Mirror(self, children: ["cURL": cURL], displayStyle: .struct) }
}

import RequestKitModel

extension WebSocket: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The definition as a person reads it: its URL and header fields, with the secrets ``SensitiveData`` names
    /// redacted, so that `print(socket)`, string interpolation and `dump(socket)` never show a token.
    ///
    /// ```swift
    /// print(WebSocket { Url("wss://127.0.0.1:8080/feed?token=abc"); Header.Authorization(.bearer("abc")) })
    /// // WebSocket wss://127.0.0.1:8080/feed?token=<redacted> [Authorization: <redacted>]
    /// ```
    public var description: String {
        let parts = parts()
        let sensitive = parts[option: SensitiveDataKey.self]
        var text = "WebSocket " + (parts.url.map { sensitive.redacting($0.absoluteString) } ?? "(no URL)")
        let fields = sensitive.redactedFields(parts.headers)
        if !fields.isEmpty { text += " [" + fields.joined(separator: ", ") + "]" }
        return text
    }

    /// The same as ``description``: redacted.
    public var debugDescription: String { description }

    /// What `dump(socket)` shows: the redacted ``description``, never the components' raw values.
    public var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }
}

extension ClientRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The request as the client sends it, as a curl command with its secrets redacted (the client's
    /// `sensitiveData` included).
    ///
    /// ```swift
    /// print(client.request(Request { Path("me") }))
    /// // curl 'https://api.example.com/v1/me' -H 'Authorization: <redacted>'
    /// ```
    public var description: String { cURL }

    /// The same as ``description``.
    public var debugDescription: String { cURL }

    /// What `dump(request)` shows: the redacted curl command.
    public var customMirror: Mirror { Mirror(self, children: ["cURL": cURL], displayStyle: .struct) }
}

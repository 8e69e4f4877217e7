extension AnyRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The request as a curl command with its secrets redacted, as for ``Request/description``.
    ///
    /// ```swift
    /// print(AnyRequest<[Todo]> { Url("http://127.0.0.1:8080/todos?api_key=k") })
    /// // curl 'http://127.0.0.1:8080/todos?api_key=<redacted>'
    /// ```
    public var description: String { cURL }

    /// The same as ``description``.
    public var debugDescription: String { cURL }

    /// What `dump(request)` shows: the decoded type and the redacted curl command.
    public var customMirror: Mirror {
        Mirror(self, children: ["value": "\(Value.self)", "cURL": cURL], displayStyle: .struct)
    }
}

extension RequestParts {
    /// `"GET http://…"` for error messages, with the URL's secrets redacted: the one label of a request in errors.
    package var label: String? {
        guard let url = try? resolvedURL() else { return nil }
        return "\(method.rawValue) \(self[option: SensitiveDataKey.self].redacting(url.absoluteString))"
    }
}

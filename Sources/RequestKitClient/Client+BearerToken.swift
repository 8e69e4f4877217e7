import RequestKitFeatures

extension Client.Configuration {
    /// Sends `Authorization: Bearer <token>` with every request and refreshes the token when the server answers
    /// `401`: adds a ``BearerAuthenticator`` to ``interceptors``.
    ///
    /// One refresh runs however many requests get a `401` together; each is sent again once with the new token.
    /// A failed refresh fails them with a ``RequestError`` of kind ``RequestError/Kind/authenticationFailed``.
    ///
    /// ```swift
    /// let client = try Client(baseURL: "https://api.example.com/v1/") { configuration in
    ///     configuration.useBearerToken(savedToken) { rejected in
    ///         try await Request { Url("https://api.example.com/v1/token"); Method(.post) }.string()
    ///     }
    /// }
    /// ```
    /// - Parameters:
    ///   - token: The token to start with; nil sends no `Authorization` until the first refresh.
    ///   - refresh: Returns a new token, given the one the server rejected.
    /// - Returns: The authenticator, to read its ``BearerAuthenticator/currentToken()`` (to save it, say).
    @discardableResult
    public mutating func useBearerToken(
        _ token: String?, refresh: @escaping @Sendable (_ rejected: String?) async throws -> String
    ) -> BearerAuthenticator {
        let authenticator = BearerAuthenticator(token: token, refresh: refresh)
        interceptors.append(authenticator)
        return authenticator
    }
}

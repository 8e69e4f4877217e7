import RequestKitModel

extension RequestError.Kind {
    /// Authentication could not be completed: a token refresh failed.
    public static let authenticationFailed = Self("authenticationFailed")
    /// A request interceptor failed to adapt the request.
    public static let interceptorFailed = Self("interceptorFailed")
    /// A redirect chain was longer than the redirect policy allows.
    public static let tooManyRedirects = Self("tooManyRedirects")
    /// A redirect pointed somewhere RequestKit does not follow: a URL that is not http or https.
    public static let redirectRefused = Self("redirectRefused")
}

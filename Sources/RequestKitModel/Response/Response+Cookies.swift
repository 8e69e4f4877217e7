extension Response {
    /// Every cookie the response set.
    ///
    /// ```swift
    /// let session = response.cookies.first { $0.name == "session" }?.value
    /// ```
    public var cookies: [ResponseCookie] { headers.cookies }
}

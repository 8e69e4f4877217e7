/// The version of RequestKit, sent in the default `User-Agent`.
///
/// The type is not named after the module, so `RequestKit.Request` always names the library's request type,
/// even beside a framework that exports its own `Request`:
///
/// ```swift
/// print("RequestKit \(RequestKitVersion.current)")  // RequestKit 0.1.0
/// let request = RequestKit.Request { Url("http://127.0.0.1:8080/todos") }
/// ```
public enum RequestKitVersion {
    /// The version of the library, as `major.minor.patch`.
    ///
    /// ```swift
    /// let agent = "MyApp/1.0 RequestKit/\(RequestKitVersion.current)"
    /// ```
    public static let current = "0.1.0"
}

/// Facts about the library: its version, sent in the default `User-Agent`.
///
/// No type is named after the module, so `RequestKit.Request` always names the library's request type, even
/// beside a framework that exports its own `Request`:
///
/// ```swift
/// print("RequestKit \(RequestKitInfo.version)")  // RequestKit 0.1.0
/// let request = RequestKit.Request { Url("http://127.0.0.1:8080/todos") }
/// ```
public enum RequestKitInfo {
    /// The version of the library, as `major.minor.patch`.
    ///
    /// ```swift
    /// let agent = "MyApp/1.0 RequestKit/\(RequestKitInfo.version)"
    /// ```
    public static let version = "0.1.0"
}

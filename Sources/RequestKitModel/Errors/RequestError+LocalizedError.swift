import Foundation

extension RequestError: LocalizedError {
    /// The readable ``description``, so that `localizedDescription`, SwiftUI alerts and loggers show what went
    /// wrong instead of "The operation could not be completed".
    ///
    /// ```swift
    /// catch { print(error.localizedDescription) }  // Connection refused by 127.0.0.1 port 9 for GET …
    /// ```
    public var errorDescription: String? { description }
}

import Foundation

extension ProxyConfiguration {
    /// A user name and password for a proxy: sent to the proxy alone (Basic `Proxy-Authorization` on HTTP, the
    /// username/password method on SOCKS5), and printed as `<redacted>` in descriptions, logs and errors.
    ///
    /// ```swift
    /// let credentials = ProxyConfiguration.Credentials(user: "me", password: "secret")
    /// print(credentials)  // me:<redacted>
    /// ```
    public struct Credentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// The user name.
        public var user: String
        /// The password, never printed.
        public var password: String

        /// Credentials for a proxy.
        ///
        /// ```swift
        /// let credentials = ProxyConfiguration.Credentials(user: "me", password: "secret")
        /// ```
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }

        public var description: String { "\(user):<redacted>" }

        public var debugDescription: String { description }

        public var customMirror: Mirror { Mirror(self, children: ["user": user, "password": "<redacted>"]) }

        /// The value of a Basic `Proxy-Authorization` header.
        var basicAuthorization: String {
            "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }
    }
}

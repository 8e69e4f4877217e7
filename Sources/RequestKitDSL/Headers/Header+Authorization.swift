import Foundation
import RequestKitModel

extension Header {
    /// Sets `Authorization`.
    ///
    /// ```swift
    /// Header.Authorization(.basic(username: "ann", password: "s3cret"))
    /// Header.Authorization(.bearer(token))
    /// Header.Authorization(.custom(scheme: "Token", credentials: apiKey))
    /// ```
    public struct Authorization: RequestComponent {
        /// The credentials to send.
        public let credentials: Credentials

        /// Sends credentials.
        ///
        /// ```swift
        /// Header.Authorization(.bearer("abc"))
        /// ```
        public init(_ credentials: Credentials) { self.credentials = credentials }

        public func apply(to parts: inout RequestParts) {
            if let problem = credentials.problem {
                parts.report(problem)
                return
            }
            parts.headers.set("Authorization", credentials.headerValue)
        }

        /// Credentials for the `Authorization` header.
        ///
        /// ```swift
        /// let credentials = Header.Authorization.Credentials.bearer("abc")
        /// ```
        public struct Credentials: Sendable, Hashable {
            /// The full header value, such as `Bearer abc`.
            public let headerValue: String
            /// Why these credentials cannot be sent, reported when the request is built.
            let problem: RequestProblem?

            init(headerValue: String, problem: RequestProblem? = nil) {
                self.headerValue = headerValue
                self.problem = problem
            }

            /// HTTP Basic: `username:password` in Base64 (RFC 7617). A user name containing `:` cannot be sent
            /// (the server would split it there), so it is reported as a problem when the request is built.
            ///
            /// ```swift
            /// .basic(username: "ann", password: "s3cret")
            /// ```
            public static func basic(username: String, password: String) -> Self {
                Self(
                    headerValue: HTTPSyntax.basicCredentials(username: username, password: password),
                    problem: username.contains(":")
                        ? RequestProblem(.invalidComponent, "a basic-auth user name cannot contain \":\"") : nil)
            }

            /// A bearer token (RFC 6750).
            ///
            /// ```swift
            /// .bearer(accessToken)
            /// ```
            public static func bearer(_ token: String) -> Self {
                Self(headerValue: "Bearer \(token)")
            }

            /// Any other scheme.
            ///
            /// ```swift
            /// .custom(scheme: "Token", credentials: "abc123")
            /// ```
            public static func custom(scheme: String, credentials: String) -> Self {
                Self(headerValue: "\(scheme) \(credentials)")
            }
        }
    }
}

import Foundation

extension HTTPSyntax {
    /// The `Authorization` value for basic authentication (RFC 7617): `Basic` and the Base64 of `user:password`.
    package static func basicCredentials(username: String, password: String) -> String {
        "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }
}

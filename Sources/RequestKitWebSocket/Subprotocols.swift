import RequestKitModel

/// The application protocols a WebSocket offers to speak (`Sec-WebSocket-Protocol`), in order of preference; the
/// server picks one of them or none, and the socket says which.
///
/// Each name is an HTTP token (RFC 6455 §4.1); anything else is reported when the socket's definition is checked.
/// Several `Subprotocols` components add up.
///
/// ```swift
/// WebSocket {
///     Url("wss://api.example.com/graphql")
///     Subprotocols("graphql-transport-ws", "graphql-ws")
/// }
/// ```
public struct Subprotocols: RequestComponent {
    /// The names, in order of preference.
    public let names: [String]

    /// Offers these subprotocols, in order of preference.
    ///
    /// ```swift
    /// Subprotocols("mqtt")
    /// ```
    public init(_ names: String...) {
        self.names = names
    }

    /// Offers these subprotocols, in order of preference.
    ///
    /// ```swift
    /// Subprotocols(["v2.chat", "v1.chat"])
    /// ```
    public init(_ names: [String]) {
        self.names = names
    }

    /// Adds the names to those already offered.
    public func apply(to parts: inout RequestParts) {
        for name in names where !HTTPSyntax.isToken(name) {
            parts.report(RequestProblem(.invalidComponent, "the subprotocol \"\(name)\" is not an HTTP token"))
        }
        parts[option: SubprotocolsKey.self] += names
    }
}

/// The subprotocols offered, in order.
package enum SubprotocolsKey: RequestOptionKey {
    package static let defaultValue: [String] = []
}

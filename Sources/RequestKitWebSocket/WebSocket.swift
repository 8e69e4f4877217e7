import Foundation
import RequestKitModel

/// A WebSocket connection's definition: a block of the same components a ``Request`` takes, for an opening
/// handshake to a `ws://` or `wss://` URL (RFC 6455).
///
/// The URL, headers (`Authorization`, cookies, an `Origin`), ``Timeout`` for the handshake and the TLS and proxy
/// components apply as they do to a request; ``Subprotocols`` and ``WebSocket/Configuration`` say what the
/// connection offers and bounds. Building it does nothing on the network.
///
/// ```swift
/// let feed = WebSocket {
///     Url("wss://api.example.com/feed")
///     Header.Authorization(.bearer(token))
///     Subprotocols("feed.v2")
///     Timeout(10)
/// }
/// ```
///
/// The handshake adds `Upgrade`, `Connection` and the `Sec-WebSocket-*` fields itself; a definition that sets one of
/// them, a method other than GET, a body, or a URL of another scheme is reported as an invalid request.
public struct WebSocket: Sendable {
    /// The components, as the builder combined them.
    package let root: any RequestComponent

    /// Defines a socket from a block of components.
    ///
    /// ```swift
    /// let socket = WebSocket {
    ///     Url("ws://127.0.0.1:8080/websocket/echo")
    ///     Header.Origin("http://127.0.0.1:8080")
    /// }
    /// ```
    public init(@RequestBuilder _ content: () -> any RequestComponent) {
        root = content()
    }

    /// Defines a socket from components built elsewhere.
    ///
    /// ```swift
    /// let socket = WebSocket(components: [Url("ws://127.0.0.1:8080/websocket/echo"), Subprotocols("chat")])
    /// ```
    public init(components: [any RequestComponent]) {
        root = ComponentList(components: components)
    }

    /// Applies every component, in order, to fresh parts.
    ///
    /// ```swift
    /// let parts = socket.parts()
    /// print(parts.url ?? "no URL", parts.headers)
    /// ```
    public func parts() -> RequestParts {
        var parts = RequestParts()
        root.apply(to: &parts)
        return parts
    }

    /// The header fields the opening handshake sets itself.
    static let handshakeFields = [
        "Upgrade", "Connection", "Sec-WebSocket-Key", "Sec-WebSocket-Version", "Sec-WebSocket-Protocol",
        "Sec-WebSocket-Extensions", "Sec-WebSocket-Accept",
    ]

    /// The definition checked, with its handshake request built over HTTP: every problem at once, as an invalid
    /// request.
    ///
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest``.
    package func checked() throws(RequestError) -> Checked {
        var parts = parts()
        let configuration = parts[option: WebSocketConfigurationKey.self]
        var problems = configuration.problems
        var isSecure = false
        if let url = parts.url {
            switch url.scheme?.lowercased() {
            case "ws", "http": parts.url = Self.replacingScheme(of: url, with: "http")
            case "wss", "https":
                isSecure = true
                parts.url = Self.replacingScheme(of: url, with: "https")
            default:
                problems.append(
                    RequestProblem(
                        .unsupportedScheme, "a WebSocket URL is ws:// or wss://, not \(url.scheme ?? "schemeless")"))
            }
        }
        if parts.method != .get {
            problems.append(
                RequestProblem(.invalidMethod, "the WebSocket handshake is a GET, not \(parts.method.rawValue)"))
        }
        if parts.body != nil {
            problems.append(RequestProblem(.bodyNotAllowed, "the WebSocket handshake cannot carry a body"))
        }
        for name in Self.handshakeFields where parts.headers.contains(name) {
            let instead = name == "Sec-WebSocket-Protocol" ? "; offer subprotocols with Subprotocols(…)" : ""
            problems.append(
                RequestProblem(.invalidHeaderName, "the WebSocket handshake sets \(name) itself\(instead)"))
        }
        let built: BuiltRequest
        do {
            built = try parts.makeCheckedRequest()
        } catch {
            throw RequestError.invalidRequest(problems + error.problems)
        }
        guard problems.isEmpty else { throw RequestError.invalidRequest(problems) }
        return Checked(
            parts: parts, request: built, isSecure: isSecure, configuration: configuration,
            subprotocols: parts[option: SubprotocolsKey.self])
    }

    /// `url` with its scheme replaced (`ws` by `http`, `wss` by `https`), the rest as written.
    private static func replacingScheme(of url: URL, with scheme: String) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        components.scheme = scheme
        return components.url ?? url
    }

    /// A definition checked: what connecting needs.
    package struct Checked: Sendable {
        /// The parts, with the URL in its `http` or `https` form.
        package let parts: RequestParts
        /// The handshake's request before the handshake's own fields: the URL (`http` or `https`), the header fields,
        /// the handshake's timeout.
        package let request: BuiltRequest
        /// Whether the URL was `wss` (or `https`): the connection is over TLS.
        package let isSecure: Bool
        /// The limits and behaviour of the connection.
        package let configuration: Configuration
        /// The subprotocols offered, in order of preference.
        package let subprotocols: [String]
    }
}

/// The status code of a WebSocket close frame (RFC 6455 §7.4): why an endpoint closes the connection.
///
/// An open set, as the codes are: the registered ones are static members, and an application's own code in
/// 3000–4999 is made with ``init(_:)``, which refuses a number no close frame may carry.
///
/// ```swift
/// extension WebSocketCloseCode {
///     static let sessionExpired = WebSocketCloseCode(4001)!
/// }
/// if error.webSocketCloseCode == .sessionExpired { reconnect() }
/// ```
public struct WebSocketCloseCode: Sendable, Hashable, CustomStringConvertible {
    /// The number on the wire.
    public let code: UInt16

    /// A code that a close frame may carry: 1000–1003, 1007–1014 (registered) and 3000–4999 (libraries and
    /// applications); nil for any other number, including 1005, 1006 and 1015, which are only ever reported.
    ///
    /// ```swift
    /// let custom = WebSocketCloseCode(4000)  // a code of the application's own
    /// let invalid = WebSocketCloseCode(1005)  // nil: "no status" is never sent
    /// ```
    public init?(_ code: UInt16) {
        guard Self.isValidOnTheWire(code) else { return nil }
        self.code = code
    }

    private init(registered code: UInt16) {
        self.code = code
    }

    /// Whether a close frame may carry `code` (RFC 6455 §7.4.1 and §7.4.2, and the IANA registry).
    static func isValidOnTheWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// Whether a close frame may carry this code (false for ``noStatusReceived``, ``abnormalClosure`` and
    /// ``tlsHandshakeFailure``).
    ///
    /// ```swift
    /// WebSocketCloseCode.normalClosure.canBeSent  // true
    /// ```
    public var canBeSent: Bool { Self.isValidOnTheWire(code) }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure = Self(registered: 1000)
    /// 1001: the endpoint is going away (a server shutting down, a page closed).
    public static let goingAway = Self(registered: 1001)
    /// 1002: the other endpoint broke the protocol.
    public static let protocolError = Self(registered: 1002)
    /// 1003: a message of a type the endpoint cannot accept (binary to a text-only endpoint).
    public static let unsupportedData = Self(registered: 1003)
    /// 1005: the close frame carried no code. Never sent; reported for an empty close frame.
    public static let noStatusReceived = Self(registered: 1005)
    /// 1006: the connection ended without a close frame. Never sent; reported for a connection that was lost.
    public static let abnormalClosure = Self(registered: 1006)
    /// 1007: a message's data does not match its type (text that is not UTF-8).
    public static let invalidPayloadData = Self(registered: 1007)
    /// 1008: a message broke the endpoint's policy.
    public static let policyViolation = Self(registered: 1008)
    /// 1009: a message too large to process.
    public static let messageTooBig = Self(registered: 1009)
    /// 1010: the client needed an extension the server did not agree to.
    public static let mandatoryExtension = Self(registered: 1010)
    /// 1011: the server met a condition that kept it from fulfilling the request.
    public static let internalError = Self(registered: 1011)
    /// 1012: the server is restarting.
    public static let serviceRestart = Self(registered: 1012)
    /// 1013: the server is overloaded; try again later.
    public static let tryAgainLater = Self(registered: 1013)
    /// 1014: a gateway or proxy received an invalid response from the server behind it.
    public static let badGateway = Self(registered: 1014)
    /// 1015: the TLS handshake failed. Never sent.
    public static let tlsHandshakeFailure = Self(registered: 1015)

    /// The number and, for a registered code, its meaning: `1000 (normal closure)`.
    ///
    /// ```swift
    /// print(WebSocketCloseCode.messageTooBig)  // 1009 (message too big)
    /// ```
    public var description: String {
        let meaning: String? =
            switch code {
            case 1000: "normal closure"
            case 1001: "going away"
            case 1002: "protocol error"
            case 1003: "unsupported data"
            case 1005: "no status received"
            case 1006: "abnormal closure"
            case 1007: "invalid payload data"
            case 1008: "policy violation"
            case 1009: "message too big"
            case 1010: "mandatory extension"
            case 1011: "internal error"
            case 1012: "service restart"
            case 1013: "try again later"
            case 1014: "bad gateway"
            case 1015: "TLS handshake failure"
            default: nil
            }
        return meaning.map { "\(code) (\($0))" } ?? "\(code)"
    }
}

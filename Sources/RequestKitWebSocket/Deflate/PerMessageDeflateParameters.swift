import RequestKitModel

/// The parameters of permessage-deflate (RFC 7692 §7.1) two ends agreed on, and the negotiation that reaches them:
/// the client's offer, the client's check of the server's answer, and a server's answer to an offer.
///
/// ```swift
/// let offer = PerMessageDeflateParameters.offer(WebSocket.Compression())
/// // "permessage-deflate; client_max_window_bits"
/// let agreed = try PerMessageDeflateParameters.accepting(answer, offered: WebSocket.Compression())
/// ```
package struct PerMessageDeflateParameters: Sendable, Hashable {
    /// The extension's name.
    package static let name = "permessage-deflate"

    /// The server compresses each message on its own.
    package var serverNoContextTakeover = false
    /// The client compresses each message on its own.
    package var clientNoContextTakeover = false
    /// The largest window the server compresses with, in bits (8 to 15).
    package var serverMaxWindowBits = 15
    /// The largest window the client compresses with, in bits (8 to 15).
    package var clientMaxWindowBits = 15

    package init(
        serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false, serverMaxWindowBits: Int = 15,
        clientMaxWindowBits: Int = 15
    ) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
    }

    /// Whether `role`'s end compresses each message on its own.
    package func noContextTakeover(of role: WebSocketRole) -> Bool {
        role == .client ? clientNoContextTakeover : serverNoContextTakeover
    }

    /// The window `role`'s end compresses with.
    package func maxWindowBits(of role: WebSocketRole) -> Int {
        role == .client ? clientMaxWindowBits : serverMaxWindowBits
    }

    // MARK: The client

    /// The `Sec-WebSocket-Extensions` value offering `compression`. `client_max_window_bits` is always offered (the
    /// client compresses with any window the server asks for).
    package static func offer(_ compression: WebSocket.Compression) -> String {
        var element = WebSocketExtensionHeader.Element(name: name)
        if compression.serverNoContextTakeover { element.parameters.append(("server_no_context_takeover", nil)) }
        if compression.clientNoContextTakeover { element.parameters.append(("client_no_context_takeover", nil)) }
        if let bits = compression.serverMaxWindowBits {
            element.parameters.append(("server_max_window_bits", "\(bits)"))
        }
        element.parameters.append(("client_max_window_bits", compression.clientMaxWindowBits.map { "\($0)" }))
        return element.headerText
    }

    /// The parameters a server's acceptance of the offer sets, checked against what was offered.
    ///
    /// - Throws: ``RequestError`` (``RequestError/WebSocketFailure/invalidHandshake``) for an unknown, repeated or
    ///   malformed parameter, or one the offer does not allow.
    package static func accepting(
        _ answer: WebSocketExtensionHeader.Element, offered: WebSocket.Compression
    ) throws(RequestError) -> PerMessageDeflateParameters {
        var agreed = PerMessageDeflateParameters()
        var seen: Set<String> = []
        var serverBits: Int?
        var clientBits: Int?
        for (parameter, value) in answer.parameters {
            let key = parameter.lowercased()
            guard seen.insert(key).inserted else { throw refusal("repeats the parameter \(parameter)") }
            switch key {
            case "server_no_context_takeover", "client_no_context_takeover":
                if value != nil { throw refusal("gives \(parameter) a value") }
                if key == "server_no_context_takeover" {
                    agreed.serverNoContextTakeover = true
                } else {
                    agreed.clientNoContextTakeover = true
                }
            case "server_max_window_bits", "client_max_window_bits":
                guard let value, let bits = windowBits(value) else {
                    throw refusal("gives \(parameter) the value \(value ?? "none"); it takes 8 to 15")
                }
                if key == "server_max_window_bits" { serverBits = bits } else { clientBits = bits }
            default:
                throw refusal("answers with the unknown parameter \(parameter)")
            }
        }
        if offered.serverNoContextTakeover, !agreed.serverNoContextTakeover {
            throw refusal("did not agree to server_no_context_takeover, which was offered")
        }
        if let offeredBits = offered.serverMaxWindowBits {
            guard let serverBits else { throw refusal("did not answer server_max_window_bits=\(offeredBits)") }
            if serverBits > offeredBits {
                throw refusal("answers server_max_window_bits=\(serverBits), above the \(offeredBits) offered")
            }
        }
        if let clientBits, let offeredBits = offered.clientMaxWindowBits, clientBits > offeredBits {
            throw refusal("answers client_max_window_bits=\(clientBits), above the \(offeredBits) offered")
        }
        agreed.serverMaxWindowBits = serverBits ?? 15
        agreed.clientMaxWindowBits = clientBits ?? offered.clientMaxWindowBits ?? 15
        return agreed
    }

    private static func refusal(_ text: String) -> RequestError {
        .webSocket(.invalidHandshake, "the server's permessage-deflate \(text)")
    }

    /// A window size in bits: 8 to 15 in decimal, without leading zeros or a sign.
    private static func windowBits(_ text: String) -> Int? {
        guard text.utf8.count <= 2, text.utf8.first != UInt8(ascii: "0"),
            text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let bits = Int(text), (8...15).contains(bits)
        else { return nil }
        return bits
    }

    // MARK: A server

    /// A server's answer to a client's offers: the first permessage-deflate offer whose parameters it understands,
    /// taken as offered (a bare `client_max_window_bits` leaves the client's window at 15), and the
    /// `Sec-WebSocket-Extensions` value saying so; nil when no offer can be taken.
    package static func answering(
        _ offers: [WebSocketExtensionHeader.Element]
    ) -> (parameters: PerMessageDeflateParameters, header: String)? {
        offers: for offer in offers where offer.name.lowercased() == name {
            var agreed = PerMessageDeflateParameters()
            var answer = WebSocketExtensionHeader.Element(name: name)
            var seen: Set<String> = []
            for (parameter, value) in offer.parameters {
                let key = parameter.lowercased()
                guard seen.insert(key).inserted else { continue offers }
                switch key {
                case "server_no_context_takeover", "client_no_context_takeover":
                    guard value == nil else { continue offers }
                    if key == "server_no_context_takeover" {
                        agreed.serverNoContextTakeover = true
                    } else {
                        agreed.clientNoContextTakeover = true
                    }
                    answer.parameters.append((key, nil))
                case "server_max_window_bits":
                    guard let value, let bits = windowBits(value) else { continue offers }
                    agreed.serverMaxWindowBits = bits
                    answer.parameters.append((key, "\(bits)"))
                case "client_max_window_bits":
                    guard let value else { continue }
                    guard let bits = windowBits(value) else { continue offers }
                    agreed.clientMaxWindowBits = bits
                    answer.parameters.append((key, "\(bits)"))
                default:
                    continue offers
                }
            }
            return (agreed, answer.headerText)
        }
        return nil
    }
}

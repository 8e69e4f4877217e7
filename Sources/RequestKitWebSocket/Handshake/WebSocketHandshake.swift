import Foundation
import RequestKitModel

/// The opening handshake of a client (RFC 6455 §4.1), without I/O: the header fields the upgrade request carries,
/// and the check of the server's answer, which either opens the connection, with the subprotocol and the
/// permessage-deflate parameters agreed, or fails it with a ``RequestError`` saying why.
///
/// ```swift
/// var random = SystemRandomNumberGenerator()
/// let handshake = WebSocketHandshake(subprotocols: ["chat"], compression: WebSocket.Compression(), using: &random)
/// request.headers += handshake.headerFields  // Upgrade, Connection, Sec-WebSocket-Key, -Version, -Protocol, -Extensions
/// let agreement = try handshake.accept(status: 101, headers: answer.headers)
/// ```
package struct WebSocketHandshake: Sendable, Hashable {
    /// The GUID the server appends to the key before hashing it (RFC 6455 §1.3).
    package static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The nonce, 16 random bytes in base64.
    package let key: String
    /// The subprotocols offered, in order of preference.
    package let subprotocols: [String]
    /// What is offered for permessage-deflate, if anything.
    package let compression: WebSocket.Compression?

    /// What the handshake agreed on.
    package struct Agreement: Sendable, Hashable {
        /// The subprotocol the server chose, if any.
        package var subprotocol: String?
        /// The permessage-deflate parameters, when the server took the extension.
        package var compression: PerMessageDeflateParameters?

        package init(subprotocol: String? = nil, compression: PerMessageDeflateParameters? = nil) {
            self.subprotocol = subprotocol
            self.compression = compression
        }
    }

    /// A handshake whose key is 16 bytes of `generator` (the system's CSPRNG, `SystemRandomNumberGenerator`, outside
    /// tests).
    package init(
        subprotocols: [String], compression: WebSocket.Compression?, using generator: inout some RandomNumberGenerator
    ) {
        var nonce: [UInt8] = []
        nonce.reserveCapacity(16)
        for _ in 0..<2 {
            let word = generator.next() as UInt64
            for shift in stride(from: 56, through: 0, by: -8) {
                nonce.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        self.init(key: Data(nonce).base64EncodedString(), subprotocols: subprotocols, compression: compression)
    }

    /// A handshake whose key is 16 bytes of the system's CSPRNG.
    package init(subprotocols: [String], compression: WebSocket.Compression?) {
        // In an existential box: an inout access to the empty `SystemRandomNumberGenerator` itself has no address
        // of its own, and the thread sanitizer reports two threads' accesses to the shared placeholder as a race.
        var generator: any RandomNumberGenerator = SystemRandomNumberGenerator()
        self.init(subprotocols: subprotocols, compression: compression, using: &generator)
    }

    /// A handshake with a given key.
    package init(key: String, subprotocols: [String], compression: WebSocket.Compression?) {
        self.key = key
        self.subprotocols = subprotocols
        self.compression = compression
    }

    /// The header fields of the upgrade request, in the order they are sent.
    package var headerFields: [HTTPHeader] {
        var fields = [
            HTTPHeader(name: "Upgrade", value: "websocket"), HTTPHeader(name: "Connection", value: "Upgrade"),
            HTTPHeader(name: "Sec-WebSocket-Key", value: key), HTTPHeader(name: "Sec-WebSocket-Version", value: "13"),
        ]
        if !subprotocols.isEmpty {
            fields.append(HTTPHeader(name: "Sec-WebSocket-Protocol", value: subprotocols.joined(separator: ", ")))
        }
        if let compression {
            fields.append(
                HTTPHeader(name: "Sec-WebSocket-Extensions", value: PerMessageDeflateParameters.offer(compression)))
        }
        return fields
    }

    /// The `Sec-WebSocket-Accept` value that proves a server read `key`: the base64 of the SHA-1 of the key and the
    /// GUID; nil when the system's SHA-1 fails.
    package static func acceptValue(for key: String) -> String? {
        SHA1Digest.hash(Array((key + acceptGUID).utf8)).map { Data($0).base64EncodedString() }
    }

    /// Checks the server's answer to the upgrade request.
    ///
    /// - Parameters:
    ///   - status: The answer's status code.
    ///   - headers: Its header fields.
    ///   - body: Its body, read when the status is not 101, kept in the error.
    ///   - url: The URL asked for, kept in the error's response.
    /// - Returns: What the server agreed to.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/webSocket``: ``RequestError/WebSocketFailure/handshakeRefused``
    ///   (with the response) for another status, ``RequestError/WebSocketFailure/invalidHandshake`` for a `101` that
    ///   breaks the handshake's rules.
    package func accept(
        status: Int, headers: HTTPHeaders, body: Data = Data(), url: URL? = nil
    ) throws(RequestError) -> Agreement {
        guard status == 101 else { throw Self.refusal(status: status, headers: headers, body: body, url: url) }
        guard headers.values(for: "Upgrade").contains(where: { Self.containsToken("websocket", in: $0) }) else {
            throw Self.invalid("answers 101 without Upgrade: websocket")
        }
        guard headers.values(for: "Connection").contains(where: { Self.containsToken("upgrade", in: $0) }) else {
            throw Self.invalid("answers 101 without Connection: Upgrade")
        }
        let accepts = headers.values(for: "Sec-WebSocket-Accept")
        guard let accept = accepts.first else { throw Self.invalid("answers 101 without Sec-WebSocket-Accept") }
        guard accepts.count == 1, let expected = Self.acceptValue(for: key),
            accept.trimmingCharacters(in: .whitespaces) == expected
        else {
            throw Self.invalid(
                "sent Sec-WebSocket-Accept \"\(accepts.joined(separator: ", "))\"; the key asks for \"\(Self.acceptValue(for: key) ?? "?")\""
            )
        }
        return Agreement(subprotocol: try chosenSubprotocol(headers), compression: try agreedExtensions(headers))
    }

    func chosenSubprotocol(_ headers: HTTPHeaders) throws(RequestError) -> String? {
        let values = headers.values(for: "Sec-WebSocket-Protocol")
        guard !values.isEmpty else { return nil }
        let chosen = values.joined(separator: ",").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard chosen.count == 1, let name = chosen.first else {
            throw Self.invalid("chose more than one subprotocol: \(values.joined(separator: ", "))")
        }
        guard subprotocols.contains(name) else {
            let offered =
                subprotocols.isEmpty ? "none was offered" : "the offer was \(subprotocols.joined(separator: ", "))"
            throw Self.invalid("chose the subprotocol \"\(name)\"; \(offered)")
        }
        return name
    }

    func agreedExtensions(_ headers: HTTPHeaders) throws(RequestError) -> PerMessageDeflateParameters? {
        let values = headers.values(for: "Sec-WebSocket-Extensions")
        guard !values.isEmpty else { return nil }
        let elements: [WebSocketExtensionHeader.Element]
        do {
            elements = try WebSocketExtensionHeader.parse(values)
        } catch {
            throw Self.invalid("sent a malformed Sec-WebSocket-Extensions: \(error)")
        }
        var agreed: PerMessageDeflateParameters?
        for element in elements {
            guard element.name.lowercased() == PerMessageDeflateParameters.name, let compression else {
                throw Self.invalid("agreed to the extension \"\(element.name)\", which was not offered")
            }
            guard agreed == nil else { throw Self.invalid("agreed to permessage-deflate twice") }
            agreed = try PerMessageDeflateParameters.accepting(element, offered: compression)
        }
        return agreed
    }

    /// The error of a handshake the server refused with `status`, keeping its answer.
    static func refusal(status: Int, headers: HTTPHeaders, body: Data, url: URL?) -> RequestError {
        let response = Response(status: HTTPStatus(code: status), headers: headers, body: body, url: url)
        return .webSocket(
            .handshakeRefused, "the server refused the WebSocket handshake with \(response.status)",
            response: response)
    }

    static func invalid(_ text: String) -> RequestError {
        .webSocket(.invalidHandshake, "the server \(text)")
    }

    /// Whether the comma-separated `value` holds `token`, ignoring case.
    private static func containsToken(_ token: String, in value: String) -> Bool {
        value.split(separator: ",").contains {
            HTTPSyntax.equalsIgnoringCase($0.trimmingCharacters(in: .whitespaces), token)
        }
    }
}

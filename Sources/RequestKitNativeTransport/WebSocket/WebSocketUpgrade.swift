import Foundation
import RequestKitModel
import RequestKitWebSocket

/// The opening handshake of a client's WebSocket connection over HTTP/1.1, without I/O: the bytes of the upgrade
/// request, and the server's answer read as it arrives, which opens the connection (with what the handshake agreed
/// and the bytes after the head, the first frames), or fails it with a ``RequestError`` that says why.
///
/// A refused handshake's body is read too, up to ``maxRefusalBodyBytes`` (by its `Content-Length`, or until the
/// server closes), so that the error keeps what the server said.
///
/// ```swift
/// var upgrade = WebSocketUpgrade(handshake: handshake, url: url)
/// let request = try upgrade.requestBytes(fields: built.fieldsAsSent, target: target)
/// switch upgrade.received(bytes) {
/// case .needsMore: break
/// case .opened(let agreement, let leftover): start(agreement, leftover)
/// case .failed(let error): fail(error)
/// }
/// ```
struct WebSocketUpgrade {
    /// Where the handshake is after the bytes received so far.
    enum Progress {
        /// The answer is not whole yet.
        case needsMore
        /// The server accepted: what it agreed to, its answer's header fields, and the bytes after its head.
        case opened(WebSocketHandshake.Agreement, headers: HTTPHeaders, leftover: [UInt8])
        /// The handshake failed.
        case failed(RequestError)
    }

    /// The most bytes of a refused handshake's body kept in the error.
    static let maxRefusalBodyBytes = 64 * 1024

    let handshake: WebSocketHandshake
    /// The URL asked for (`http` or `https`), kept in a refusal's response.
    let url: URL
    /// Bounds on the answer's head.
    let limits: ResponseHead.Limits
    private var buffer: [UInt8] = []
    /// A refusal whose body is being read: its head and how many body bytes are expected (nil: until the end).
    private var refusal: (head: ResponseHead, bodyLength: Int?)?
    private var isDone = false

    init(handshake: WebSocketHandshake, url: URL, limits: ResponseHead.Limits = ResponseHead.Limits()) {
        self.handshake = handshake
        self.url = url
        self.limits = limits
    }

    /// The upgrade request: `GET`, the request's own fields (`Host` added unless set; no `Accept-Encoding` or
    /// `Connection` of the transport's), then the handshake's.
    ///
    /// - Throws: ``RequestError`` of kind `.transport` for a field that cannot be written safely.
    func requestBytes(
        fields: [HTTPHeader], target: HTTP1RequestEncoder.Target
    ) throws(RequestError) -> [UInt8] {
        var bytes = Array("GET \(target.path) HTTP/1.1\r\n".utf8)
        var hasHost = false
        for field in fields {
            guard HTTPSyntax.isToken(field.name), HTTPSyntax.invalidValueByte(in: field.value) == nil else {
                throw RequestError.transport(
                    POSIXError(.EINVAL), detail: "the header \(field.name) has a byte that cannot be sent")
            }
            switch field.name.lowercased() {
            case "content-length", "transfer-encoding": continue
            case "proxy-authorization" where target.key.proxy != nil: continue
            case "host": hasHost = true
            default: break
            }
            bytes += "\(field.name): \(field.value)\r\n".utf8
        }
        if !hasHost { bytes += "Host: \(target.hostHeader)\r\n".utf8 }
        for field in handshake.headerFields { bytes += "\(field.name): \(field.value)\r\n".utf8 }
        bytes += "\r\n".utf8
        return bytes
    }

    /// Bytes of the answer arrived.
    mutating func received(_ bytes: UnsafeRawBufferPointer) -> Progress {
        guard !isDone else { return .needsMore }
        buffer.append(contentsOf: bytes)
        return advance(isEnd: false)
    }

    /// Bytes of the answer arrived.
    mutating func received(_ bytes: [UInt8]) -> Progress {
        bytes.withUnsafeBytes { received($0) }
    }

    /// The server closed the connection.
    mutating func ended() -> Progress {
        guard !isDone else { return .needsMore }
        if refusal != nil { return advance(isEnd: true) }
        isDone = true
        let what = buffer.isEmpty ? "without answering" : "in the middle of its answer"
        return .failed(
            .webSocket(.invalidHandshake, "the server closed the connection \(what) to the WebSocket handshake"))
    }

    private mutating func advance(isEnd: Bool) -> Progress {
        if let (head, bodyLength) = refusal {
            let wanted = min(bodyLength ?? Self.maxRefusalBodyBytes, Self.maxRefusalBodyBytes)
            guard buffer.count >= wanted || isEnd else { return .needsMore }
            return refused(head, body: Data(buffer.prefix(wanted)))
        }
        let parsed: (head: ResponseHead, length: Int)?
        do {
            parsed = try buffer.withUnsafeBytes { bytes throws(HTTP1ParseError) in
                try ResponseHead.parse(bytes, limits: limits)
            }
        } catch {
            isDone = true
            return .failed(
                .webSocket(
                    .invalidHandshake, "the server's answer to the WebSocket handshake is not HTTP/1.1: \(error)"))
        }
        guard let (head, length) = parsed else { return .needsMore }
        buffer.removeFirst(length)
        if head.isInformational {
            // A 100 Continue or 103 Early Hints comes before the answer.
            return advance(isEnd: isEnd)
        }
        guard head.status == 101 else {
            let framing = try? head.framing(isHeadRequest: false)
            switch framing {
            case .length(let count)?: refusal = (head, count)
            case .none?: return refused(head, body: Data())
            default: refusal = (head, nil)
            }
            return advance(isEnd: isEnd)
        }
        isDone = true
        let headers = HTTPHeaders(head.fields)
        do {
            let agreement = try handshake.accept(status: 101, headers: headers, url: url)
            let leftover = buffer
            buffer = []
            return .opened(agreement, headers: headers, leftover: leftover)
        } catch {
            return .failed(error)
        }
    }

    private mutating func refused(_ head: ResponseHead, body: Data) -> Progress {
        isDone = true
        buffer = []
        do {
            _ = try handshake.accept(status: head.status, headers: HTTPHeaders(head.fields), body: body, url: url)
            return .failed(.webSocket(.handshakeRefused, "the server refused the WebSocket handshake"))
        } catch {
            return .failed(error)
        }
    }
}

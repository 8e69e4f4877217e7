import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Writes the bytes of an HTTP/1.1 request head for ``NativeTransport``.
///
/// The target is the URL's path and query exactly as percent-encoded in the URL; `Host` carries the port when
/// it is not the scheme's default (80, or 443 for https); `Content-Length` is computed from the body;
/// `Accept-Encoding` offers the codings ``ContentDecoder`` undoes (gzip, deflate, and on Linux br and zstd)
/// unless the caller set `Accept-Encoding`; `Connection: keep-alive` is added unless the caller set `Connection`.
/// The executor has validated every header already, but a name that is not a token or a value
/// with CR, LF or another control byte is refused again here, so no request can ever smuggle a line.
enum HTTP1RequestEncoder {
    /// Where a request goes and what its request line names.
    struct Target: Sendable, Equatable {
        /// The host and port to connect to.
        var key: ConnectionKey
        /// The `Host` header value.
        var hostHeader: String
        /// The origin-form request target: path and query, never empty.
        var path: String
        /// The `Proxy-Authorization` value for a request sent to an HTTP proxy in absolute form.
        var proxyAuthorization: String?

        /// The target of a request that goes through `route`: the key names the proxy, and a plain request to an
        /// HTTP proxy names the whole URL (absolute form) and carries the proxy's credentials.
        func routed(through route: ProxyRoute?) -> Target {
            guard let route else { return self }
            var routed = self
            routed.key = ConnectionKey(host: key.host, port: key.port, tls: key.tls, proxy: route)
            if !routed.key.isTunnelled {
                routed.path = "http://\(hostHeader)\(path)"
                routed.proxyAuthorization = route.server.credentials?.basicAuthorization
            }
            return routed
        }
    }

    /// The target of an `http` URL, or of an `https` URL when `tls` is given (port 443 by default, and the
    /// connection key carries the TLS configuration). A plain URL's host and port are read in one pass
    /// (``PlainURLAuthority``), or taken from `authority` when the caller has read them already; any other URL's
    /// are read through Foundation.
    ///
    /// - Throws: ``RequestError`` of kind `.transport` when the URL has no host.
    static func target(
        of url: URL, authority known: PlainURLAuthority? = nil, tls: TLSSettings? = nil
    ) throws(RequestError) -> Target {
        let defaultPort = tls == nil ? 80 : 443
        if let authority = known ?? PlainURLAuthority(url) {
            // A plain host has no ":" and no brackets.
            let port = authority.port ?? defaultPort
            let hostHeader = port == defaultPort ? authority.host : "\(authority.host):\(port)"
            return Target(
                key: ConnectionKey(host: authority.host, port: port, tls: tls), hostHeader: hostHeader,
                path: originForm(url))
        }
        guard var host = url.host, !host.isEmpty else {
            throw RequestError.transport(URLError(.badURL), detail: "the URL has no host")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = url.port ?? defaultPort
        var hostHeader = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        if port != defaultPort { hostHeader += ":\(port)" }
        return Target(
            key: ConnectionKey(host: host, port: port, tls: tls), hostHeader: hostHeader, path: originForm(url))
    }

    /// The path and query of `url` as written, without the fragment: "/" when the path is empty.
    static func originForm(_ url: URL) -> String {
        var text = url.absoluteString
        return text.withUTF8 { bytes -> String in
            var index = 0
            // After "scheme://", skip the authority: the target starts at the first "/", "?" or "#" after it.
            if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon + 2 < bytes.count,
                bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
            {
                index = colon + 3
                while index < bytes.count, bytes[index] != UInt8(ascii: "/"), bytes[index] != UInt8(ascii: "?"),
                    bytes[index] != UInt8(ascii: "#")
                {
                    index += 1
                }
            }
            let end = bytes[index...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            if index == end { return "/" }
            let rest = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
            return bytes[index] == UInt8(ascii: "/") ? rest : "/" + rest
        }
    }

    /// What a request's head is made of besides its target: the method, the header fields and the idle timeout,
    /// taken from the request the pipeline built (``TransferRequest/built``), read from the `URLRequest` otherwise.
    struct RequestHead {
        /// The method, a valid token.
        let method: String
        /// The idle timeout in seconds.
        let timeout: Double
        private let source: Source

        private enum Source {
            case built(BuiltRequest)
            case given(URLRequest)
        }

        /// The head of `request`.
        ///
        /// - Throws: ``RequestError`` of kind `.transport` for a method that is not a token.
        init(_ request: TransferRequest) throws(RequestError) {
            if let built = request.built {
                (method, timeout, source) = (built.method, built.timeout, .built(built))
                return
            }
            let urlRequest = request.urlRequest
            let method = urlRequest.httpMethod ?? "GET"
            guard HTTPSyntax.isToken(method) else {
                throw RequestError.transport(POSIXError(.EINVAL), detail: "the method is not a valid token")
            }
            (self.method, timeout, source) = (method, urlRequest.timeoutInterval, .given(urlRequest))
        }

        /// The body the `URLRequest` carries itself (``HTTP1RequestEncoder/body(of:)``); none for a built request,
        /// whose body is the transfer's.
        func bodyInRequest() -> Data {
            guard case .given(let request) = source else { return Data() }
            return HTTP1RequestEncoder.body(of: request)
        }

        /// The header fields: a built request's as written (``BuiltRequest/fieldsAsSent``), a `URLRequest`'s sorted
        /// by name.
        private var fields: [HTTPHeader] {
            switch source {
            case .built(let built):
                return built.fieldsAsSent
            case .given(let request):
                guard let fields = request.allHTTPHeaderFields, !fields.isEmpty else { return [] }
                return fields.sorted { $0.key < $1.key }.map { HTTPHeader(name: $0.key, value: $0.value) }
            }
        }

        /// The request line and header section, ending with the empty line.
        ///
        /// - Parameters:
        ///   - target: Where the request goes.
        ///   - bodyLength: The body's length, or `nil` for a body of unknown length sent with chunked coding.
        /// - Returns: The bytes.
        /// - Throws: ``RequestError`` of kind `.transport` for a header that cannot be written safely.
        func bytes(target: Target, bodyLength: Int?) throws(RequestError) -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(256)
            bytes += method.utf8
            bytes.append(UInt8(ascii: " "))
            bytes += target.path.utf8
            bytes += " HTTP/1.1\r\n".utf8
            var hasHost = false
            var hasConnection = false
            var hasAcceptEncoding = false
            for field in fields {
                let (name, value) = (field.name, field.value)
                guard HTTPSyntax.isToken(name), HTTPSyntax.invalidValueByte(in: value) == nil else {
                    throw RequestError.transport(
                        POSIXError(.EINVAL), detail: "the header \(name) has a byte that cannot be sent")
                }
                switch name.lowercased() {
                case "content-length", "transfer-encoding": continue
                // Through a proxy, its credentials are the transport's, and never cross a tunnel to the origin.
                case "proxy-authorization" where target.key.proxy != nil: continue
                case "host": hasHost = true
                case "connection": hasConnection = true
                case "accept-encoding": hasAcceptEncoding = true
                default: break
                }
                bytes += name.utf8
                bytes += ": ".utf8
                bytes += value.utf8
                bytes += "\r\n".utf8
            }
            if !hasHost {
                bytes += "Host: ".utf8
                bytes += target.hostHeader.utf8
                bytes += "\r\n".utf8
            }
            if let bodyLength {
                if bodyLength > 0 || method == "POST" || method == "PUT" || method == "PATCH" {
                    bytes += "Content-Length: ".utf8
                    bytes += String(bodyLength).utf8
                    bytes += "\r\n".utf8
                }
            } else {
                bytes += "Transfer-Encoding: chunked\r\n".utf8
            }
            if !hasAcceptEncoding {
                bytes += "Accept-Encoding: ".utf8
                bytes += ContentDecoder.acceptEncoding.utf8
                bytes += "\r\n".utf8
            }
            if let proxyAuthorization = target.proxyAuthorization {
                bytes += "Proxy-Authorization: ".utf8
                bytes += proxyAuthorization.utf8
                bytes += "\r\n".utf8
            }
            if !hasConnection { bytes += "Connection: keep-alive\r\n".utf8 }
            bytes += "\r\n".utf8
            return bytes
        }
    }

    /// The body of `request`: `httpBody`, or everything its `httpBodyStream` yields.
    static func body(of request: URLRequest) -> Data {
        if let body = request.httpBody { return body }
        guard let stream = request.httpBodyStream else { return Data() }
        var data = Data()
        stream.open()
        defer { stream.close() }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = stream.read(&chunk, maxLength: chunk.count)
            if count <= 0 { break }
            data.append(contentsOf: chunk[0..<count])
        }
        return data
    }
}

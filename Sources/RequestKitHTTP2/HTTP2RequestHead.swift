import RequestKitModel

/// A request's head as an HTTP/2 header block: the pseudo-header fields first, then the request's own fields with
/// their names in lower case, without the fields that are specific to an HTTP/1.1 connection (RFC 9113, 8.2.2).
///
/// ```swift
/// let head = HTTP2RequestHead(
///     method: "GET", scheme: "https", authority: "api.example.com", path: "/todos?userId=1",
///     headers: ["Accept": "application/json", "Connection": "keep-alive"])
/// print(head.fields.map(\.name))  // [":method", ":scheme", ":authority", ":path", "accept"]
/// ```
package struct HTTP2RequestHead: Hashable, Sendable {
    /// The fields in the order they are sent.
    package let fields: [HTTPHeader]

    /// The names of fields that mean something only to one HTTP/1.1 connection: never sent over HTTP/2. `Host` becomes
    /// `:authority`.
    static let connectionSpecific: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host",
    ]

    /// The head of a request for `path` (with its query) on `authority`, over `scheme`.
    package init(method: String, scheme: String, authority: String, path: String, headers: HTTPHeaders) {
        fields = Self.fields(
            pseudo: [
                HTTPHeader(name: ":method", value: method), HTTPHeader(name: ":scheme", value: scheme),
                HTTPHeader(name: ":authority", value: authority),
                HTTPHeader(name: ":path", value: path.isEmpty ? "/" : path),
            ], headers: headers)
    }

    /// The head of an extended CONNECT (RFC 8441, 4) that asks for a tunnel speaking `protocolName` (`websocket`)
    /// to `path` on `authority`: `:method` `CONNECT` with `:protocol`, then `headers` as for a request.
    ///
    /// ```swift
    /// let head = HTTP2RequestHead(
    ///     connecting: "websocket", scheme: "https", authority: "chat.example.com", path: "/live",
    ///     headers: ["Sec-WebSocket-Version": "13"])
    /// print(head.fields.map(\.name))
    /// // [":method", ":protocol", ":scheme", ":authority", ":path", "sec-websocket-version"]
    /// ```
    package init(
        connecting protocolName: String, scheme: String, authority: String, path: String, headers: HTTPHeaders
    ) {
        fields = Self.fields(
            pseudo: [
                HTTPHeader(name: ":method", value: "CONNECT"), HTTPHeader(name: ":protocol", value: protocolName),
                HTTPHeader(name: ":scheme", value: scheme), HTTPHeader(name: ":authority", value: authority),
                HTTPHeader(name: ":path", value: path.isEmpty ? "/" : path),
            ], headers: headers)
    }

    /// `pseudo`, then `headers` with their names in lower case, without the connection-specific ones.
    private static func fields(pseudo: [HTTPHeader], headers: HTTPHeaders) -> [HTTPHeader] {
        var fields = pseudo
        fields.reserveCapacity(pseudo.count + headers.count)
        for field in headers {
            let name = field.name.lowercased()
            if connectionSpecific.contains(name) { continue }
            // `TE` is allowed with one value only (RFC 9113, 8.2.2).
            if name == "te", field.value.lowercased() != "trailers" { continue }
            fields.append(HTTPHeader(name: name, value: field.value))
        }
        return fields
    }
}

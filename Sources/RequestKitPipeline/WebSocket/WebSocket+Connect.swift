import Foundation

extension WebSocket {
    /// Connects: the opening handshake over HTTP/1.1 (``Timeout`` bounds connecting and the handshake), on the
    /// native transport (the one ``Using`` names, or `NativeTransport.shared`), through the proxy and with the
    /// TLS configuration it has, with the cookies of the jar ``UseCookies`` names; the cookies the server sets
    /// in its answer go into that jar.
    ///
    /// ```swift
    /// let socket = try await WebSocket {
    ///     Url("wss://api.example.com/feed")
    ///     Header.Authorization(.bearer(token))
    ///     Timeout(10)
    /// }.connect()
    /// ```
    /// - Returns: The open socket.
    /// - Throws: ``RequestError``: `.invalidRequest` for a definition that cannot be a handshake; the connection's
    ///   failures as a request's (`.connectionFailed`, `.tls`, `.timedOut`, `.cancelled`); `.webSocket` with
    ///   ``RequestError/WebSocketFailure/handshakeRefused`` (and the response) when the server answers another
    ///   status than 101, or ``RequestError/WebSocketFailure/invalidHandshake`` for a 101 that breaks the
    ///   handshake's rules.
    public func connect() async throws(RequestError) -> Socket {
        let checked = try checked()
        var request = checked.request
        let jar = checked.parts[option: CookieJarKey.self]
        if let jar, let cookies = jar.cookieHeader(for: request.url, adding: request.value(forField: "Cookie")) {
            request = request.settingField("Cookie", cookies)
        }
        let transport = (checked.parts.transport as? NativeTransport) ?? NativeTransport.shared
        let socket = try await transport.openWebSocket(checked, request: request)
        if let jar {
            let cookies = socket.handshakeHeaders.cookies
            if !cookies.isEmpty { jar.store(cookies, from: request.url) }
        }
        return socket
    }
}

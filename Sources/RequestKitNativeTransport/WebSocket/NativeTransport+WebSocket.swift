import Foundation
import RequestKitModel
import RequestKitWebSocket

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NativeTransport: WebSocketOpening {
    /// Opens a WebSocket connection on this transport's event loops: the socket's definition checked, `request` as
    /// the handshake's request (with the cookie jar's cookies, when the pipeline added them), through the proxy
    /// the transport's settings choose and its TLS configuration. ALPN offers HTTP/2 only when the socket prefers it
    /// (``WebSocket/Configuration/prefersHTTP2``): it then opens on an HTTP/2 stream when the server allows extended
    /// CONNECT (RFC 8441), and over HTTP/1.1 otherwise; an origin whose server picked HTTP/2 without allowing it is
    /// offered HTTP/1.1 only from then on.
    ///
    /// ```swift
    /// let socket = try await NativeTransport.shared.openWebSocket(checked, request: checked.request)
    /// ```
    /// - Throws: ``RequestError``: the connection's failures as a request's, a refused or broken handshake, the
    ///   handshake's timeout, a cancellation.
    package func openWebSocket(
        _ checked: WebSocket.Checked, request: BuiltRequest
    ) async throws(RequestError) -> WebSocket.Socket {
        #if !canImport(COpenSSL)
        if checked.isSecure {
            throw RequestError.invalidRequest([
                RequestProblem(.unsupportedScheme, "wss:// needs the native transport's TLS layer, which is Linux-only")
            ])
        }
        #endif
        let url = HTTPURL(url: request.url, isSecure: checked.isSecure)
        // The definition's ``Resolve`` components, as a request's.
        let overrides = checked.parts[option: DNSOverridesKey.self]
        let route =
            proxySelection.isEmpty
            ? nil
            : try await proxyRoute(
                for: TransferRequest(
                    .built(request), body: nil, uploadProgress: nil, responseLimits: ResponseLimits(),
                    dnsOverrides: overrides),
                to: url)
        let tls = checked.isSecure ? TLSSettings(configuration.tls) : nil
        var target = try HTTP1RequestEncoder.target(of: request.url, authority: request.authority, tls: tls)
        target.key = ConnectionKey(host: target.key.host, port: target.key.port, tls: tls, proxy: route)
            .overridden(by: overrides, over: configuration.dnsOverrides)
        let handshake = WebSocketHandshake(
            subprotocols: checked.subprotocols, compression: checked.configuration.compression)
        var limits = ResponseHead.Limits()
        limits.maxHeadBytes = configuration.maxResponseHeadBytes
        let upgrade = WebSocketUpgrade(handshake: handshake, url: request.url, limits: limits)
        var setup = WebSocketChannel.Setup(
            key: target.key, request: try upgrade.requestBytes(fields: request.fieldsAsSent, target: target),
            upgrade: upgrade, configuration: checked.configuration, timeout: request.timeout,
            connectTimeout: configuration.connectTimeout)
        setup.recordsMetrics = configuration.recordsMetrics
        let loop: EventLoop
        do {
            loop = try EventLoopGroup.shared(loops: configuration.eventLoopCount).next()
        } catch {
            throw RequestError.transport(error, detail: "NativeTransport could not start its event loop")
        }
        #if canImport(CNghttp2)
        if checked.isSecure, checked.configuration.prefersHTTP2 {
            var offering = configuration.tls
            offering.applicationProtocols = ["h2", "http/1.1"]
            let key = ConnectionKey(
                host: target.key.host, port: target.key.port, tls: TLSSettings(offering), proxy: route
            )
            .overridden(by: overrides, over: configuration.dnsOverrides)
            if !extendedConnectRefusals.contains(key, now: loop.now()) {
                setup.http2 = WebSocketChannel.HTTP2Attempt(
                    key: key, head: try upgrade.extendedConnectHead(fields: request.fieldsAsSent, target: target),
                    refusals: extendedConnectRefusals)
            }
        }
        #endif
        let dialer = SystemDialer(binding: configuration.localBinding, keepAlive: configuration.tcpKeepAlive)
        let channel = WebSocketChannel(
            setup: setup, loop: loop, dialer: WebSocketDialer(dialer), resolver: try pool().resolver,
            race: configuration.raceConfiguration)
        let opened = try await channel.open()
        return WebSocket.Socket(channel: channel, opened: opened)
    }
}

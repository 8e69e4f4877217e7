import Foundation
import RequestKitModel
import RequestKitSockets

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// RequestKit's own transport: HTTP/1.1 and HTTP/2 over its own pooled TCP connections, several times faster than
/// URLSession on Linux, for `http://` and (over its own TLS) `https://` URLs. Over `https://` it speaks HTTP/2 when
/// the server picks it (``Configuration/http2``).
///
/// Choose it per request with `Using(NativeTransport.shared)`, or on a client. Connections are kept alive and
/// reused (at most ``Configuration/maxConnectionsPerHost`` per host, with further requests queued), closed after
/// ``Configuration/idleConnectionTimeout``, and checked before reuse: a request whose kept-alive connection turns
/// out closed by the server is sent again once on a new connection when its method is idempotent, and fails
/// with a clear ``RequestError`` otherwise. Responses are parsed defensively (size limits, strict framing,
/// duplicate headers kept in wire order), and gzip and deflate bodies are decompressed. Redirects come back as
/// they are: the request pipeline follows them, as it does for every transport. The idle timeout is the request's
/// `timeoutInterval`; cancelling the task closes the connection at once.
///
/// Its sockets are non-blocking and driven by an event loop (epoll on Linux, kqueue on Apple platforms): one
/// thread by default (``Configuration/eventLoopCount``) serves every connection, however many are open or waiting
/// on slow servers, and awaiting tasks are resumed from it. A host name is looked up without a thread of its own (on
/// Linux, the system's c-ares resolver runs on the event loop) and its answer cached for its TTL; a new connection
/// races the host's IPv6 and IPv4 addresses (Happy Eyeballs, RFC 8305), so a family whose packets are silently
/// dropped costs ``Configuration/connectionAttemptDelay``, not the connect timeout.
///
/// On Linux it speaks `https://` itself, over the system's OpenSSL 3: TLS 1.2 or 1.3, verified against
/// ``Configuration/tls`` (the system's trust store by default) before any request byte is sent, with sessions
/// resumed on reconnects. TLS failures are ``RequestError``s of kind ``RequestError/Kind/tls``. It is the default
/// transport there for `http` and `https` (unless a proxy is set in the environment). On Apple platforms
/// `https://` requests go to ``Configuration/secureTransport`` (URLSession by default), which uses the system's
/// own TLS and trust settings.
///
/// ```swift
/// let todo = try await Request {
///     Url("https://api.example.com/todos/1")
///     Using(NativeTransport.shared)
/// }.json()
/// ```
public final class NativeTransport: Transport {
    /// A transport with the default configuration, shared by everyone who does not need another.
    ///
    /// ```swift
    /// Using(NativeTransport.shared)
    /// ```
    public static let shared = NativeTransport()

    /// The configuration this transport was made with.
    public let configuration: Configuration
    let limits: ConnectionLimits
    /// ``Configuration/tls`` as the pool's keys hold it.
    let tlsSettings: TLSSettings
    /// ``Configuration/proxy``, with the environment read.
    let proxySelection: ProxySelection
    /// The origins whose server picked HTTP/2 for a WebSocket without allowing extended CONNECT.
    let extendedConnectRefusals = ExtendedConnectRefusals()
    /// The connection pool, or why the event loops could not be started.
    private let poolOrFailure: Result<ConnectionPool, POSIXError>

    /// Creates a transport with its own connection pool.
    ///
    /// ```swift
    /// var configuration = NativeTransport.Configuration()
    /// configuration.maxConnectionsPerHost = 4
    /// let transport = NativeTransport(configuration: configuration)
    /// ```
    /// - Parameter configuration: Limits and timeouts.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.limits = configuration.limits
        var tls = configuration.tls
        #if canImport(CNghttp2)
        if configuration.http2.offersOverTLS { tls.applicationProtocols = ["h2", "http/1.1"] }
        #endif
        self.tlsSettings = TLSSettings(tls)
        self.proxySelection = ProxySelection(configuration.proxy, environment: ProcessInfo.processInfo.environment)
        self.poolOrFailure = Result { () throws(POSIXError) in
            ConnectionPool(
                group: try EventLoopGroup.shared(loops: configuration.eventLoopCount),
                maxConnectionsPerHost: configuration.maxConnectionsPerHost,
                idleTimeout: configuration.idleConnectionTimeout, connectTimeout: configuration.connectTimeout,
                bufferSize: max(64 * 1024, configuration.maxResponseHeadBytes),
                pollWindow: configuration.responsePollNanoseconds, http2: configuration.http2,
                http2PingInterval: configuration.http2PingInterval,
                dialer: SystemDialer(binding: configuration.localBinding, keepAlive: configuration.tcpKeepAlive),
                resolver: HostResolver(
                    lookup: configuration.resolver.map { UserResolverLookup($0) as any AddressLookup }
                        ?? SystemLookup(servers: configuration.systemResolverServers),
                    overrides: configuration.dnsOverrides, policy: configuration.dnsCachePolicy),
                race: configuration.raceConfiguration, observers: configuration.connectionObservers)
        }
    }

    /// The byte stream for a connected socket: TLS (verified before anything is sent) when the key has a TLS
    /// configuration, plain TCP otherwise; through a proxy, a tunnel first (``ProxyTunnelByteStream``, over TLS to
    /// an `https` proxy), or TLS to an `https` proxy for a plain request in absolute form.
    static func makeStream(descriptor: Int32, key: ConnectionKey) throws -> any ByteStream {
        if let route = key.proxy {
            if key.isTunnelled { return try ProxyTunnelByteStream(descriptor: descriptor, key: key, route: route) }
            #if canImport(COpenSSL)
            if let proxyTLS = route.proxyTLS {
                return try TLSByteStream(
                    descriptor: descriptor, host: route.server.host, port: route.server.port,
                    configuration: proxyTLS.configuration)
            }
            #endif
            return SocketByteStream(descriptor: descriptor)
        }
        #if canImport(COpenSSL)
        if let tls = key.tls {
            return try TLSByteStream(
                descriptor: descriptor, host: key.host, port: key.port, configuration: tls.configuration)
        }
        #endif
        return SocketByteStream(descriptor: descriptor)
    }

    /// Whether this transport sends to `url` itself (`http`, and `https` where the TLS layer exists), rather than
    /// handing the request to ``Configuration/secureTransport``.
    func sendsItself(_ url: HTTPURL) -> Bool {
        #if canImport(COpenSSL)
        return true
        #else
        return !url.isSecure
        #endif
    }

    /// The TLS configuration for connections to `url`: nil for `http`.
    func tlsConfiguration(for url: HTTPURL) -> TLSSettings? {
        url.isSecure ? tlsSettings : nil
    }

    /// The connection pool.
    ///
    /// - Throws: ``RequestError`` when the event loops could not be started (the process is out of descriptors).
    func pool() throws(RequestError) -> ConnectionPool {
        switch poolOrFailure {
        case .success(let pool): return pool
        case .failure(let error):
            throw RequestError.transport(error, detail: "NativeTransport could not start its event loop")
        }
    }

    /// Creates a transport, adjusting the default configuration.
    ///
    /// ```swift
    /// let transport = NativeTransport { $0.maxConnectionsPerHost = 4 }
    /// ```
    /// - Parameter configure: Changes to make to the default configuration.
    public convenience init(_ configure: (inout Configuration) -> Void) {
        var configuration = Configuration()
        configure(&configuration)
        self.init(configuration: configuration)
    }

    /// Closes the connections that are open and idle; busy ones close when their request ends.
    ///
    /// ```swift
    /// NativeTransport.shared.closeIdleConnections()
    /// ```
    public func closeIdleConnections() {
        try? pool().closeIdleConnections()
    }

    /// How many connections are open and idle in the pool.
    ///
    /// ```swift
    /// print(NativeTransport.shared.idleConnectionCount)
    /// ```
    public var idleConnectionCount: Int { (try? pool().idleCount) ?? 0 }

    /// Sends `request` and reads the whole response; on Apple platforms `https` requests go to
    /// ``Configuration/secureTransport``.
    /// A redirect is returned as it is: the request pipeline follows redirects, for every transport.
    ///
    /// ```swift
    /// let response = try await NativeTransport.shared.send(TransferRequest(URLRequest(url: healthURL)))
    /// ```
    /// - Parameter request: The request; its `timeoutInterval` is the idle timeout. A body read from files, or
    ///   one whose upload progress is reported, is streamed as ``stream(_:)`` streams it.
    /// - Returns: The response, its body decompressed when the server compressed it.
    /// - Throws: ``RequestError``: `.tls` when the server cannot be verified or the handshake fails, `.transport`
    ///   (with an ``HTTP1ParseError`` for a malformed response),
    ///   `.responseTooLarge` (with the response head) when the body passes ``TransferRequest/responseLimits``'
    ///   ``ResponseLimits/maxBodyBytes`` (or ``Configuration/maxResponseBodyBytes``, when lower) or expands more
    ///   than its ``ResponseLimits/maxDecompressionRatio``, `.timedOut` or `.cancelled`. Reading stops at the
    ///   limit and the connection is closed.
    public func send(_ request: TransferRequest) async throws -> Response {
        let url = try httpURL(of: request)
        if !sendsItself(url) { return try await configuration.secureTransport.send(request) }
        let bodyLimit = max(0, min(configuration.maxResponseBodyBytes, request.responseLimits.maxBodyBytes))
        if let body = request.body, !body.isInMemory || request.uploadProgress != nil {
            // Streamed, the body is held to the buffered limit as it arrives.
            var streamed = request
            streamed.responseLimits.maxStreamedBodyBytes = bodyLimit
            let streaming = try await stream(streamed)
            var response = streaming.head
            response.body = try await streaming.collect(upTo: bodyLimit)
            return response
        }
        let route =
            proxySelection.isEmpty || url.unixSocket != nil ? nil : try await proxyRoute(for: request, to: url)
        let job = try bufferedJob(for: request, to: url, bodyLimit: bodyLimit, route: route)
        return try await exchange(
            job, url: url.url, bodyLimit: bodyLimit, maxRatio: request.responseLimits.maxDecompressionRatio)
    }

    /// An `http` or `https` URL, with its scheme read once, and the Unix domain socket it goes through, if any.
    struct HTTPURL: Sendable {
        /// The request's URL, which the response and the metrics report.
        let url: URL
        /// Whether the scheme is `https` (or `https+unix`).
        let isSecure: Bool
        /// The Unix domain socket the request goes through instead of TCP (an `http+unix` URL's, or a route of
        /// ``Configuration/unixSocketRoutes``); nil for TCP.
        var unixSocket: SocketAddress? = nil
        /// The URL the request line and `Host` are written from: ``url``, except for an `http+unix` URL, whose
        /// path and query go to `localhost`.
        var wireURL: URL? = nil

        /// The URL the request is written from.
        var target: URL { wireURL ?? url }
    }

    /// The URL of `request`, which must be http or https (or http+unix or https+unix): the one the pipeline checked
    /// when it built the request.
    func httpURL(of request: TransferRequest) throws(RequestError) -> HTTPURL {
        guard let built = request.built else { return try httpURL(of: request.urlRequest.url) }
        if let authority = built.authority {
            return HTTPURL(url: built.url, isSecure: authority.isSecure, unixSocket: unixSocket(for: built.url))
        }
        return try httpURL(of: built.url)
    }

    /// `url`, which must be http or https (or http+unix or https+unix).
    private func httpURL(of url: URL?) throws(RequestError) -> HTTPURL {
        guard let url else {
            throw RequestError.transport(URLError(.badURL), detail: "the request has no URL")
        }
        // A plain URL is read again when its job is made: kept here, it would enlarge the frames that wait.
        if let authority = PlainURLAuthority(url) {
            return HTTPURL(url: url, isSecure: authority.isSecure, unixSocket: unixSocket(for: url))
        }
        guard let scheme = url.scheme else {
            throw RequestError.transport(URLError(.badURL), detail: "the request has no URL")
        }
        if HTTPSyntax.isUnixSocketScheme(scheme) { return try Self.unixSocketURL(url) }
        let isSecure = HTTPSyntax.equalsIgnoringCase(scheme, "https")
        guard isSecure || HTTPSyntax.equalsIgnoringCase(scheme, "http") else {
            throw RequestError.transport(
                URLError(.unsupportedURL),
                detail: "NativeTransport sends http, https, http+unix and https+unix URLs only")
        }
        return HTTPURL(url: url, isSecure: isSecure, unixSocket: unixSocket(for: url))
    }

    /// Runs `job`, one request (no redirects), and reads its whole response, of at most `bodyLimit` bytes once
    /// decoded (and on the wire) and expanding at most `maxRatio` times.
    private nonisolated(nonsending) func exchange(
        _ job: RequestJob, url: URL, bodyLimit: Int, maxRatio: Int
    ) async throws -> Response {
        guard case .response(let exchanged) = try await perform(job, url: url) else {
            throw RequestError.transport(URLError(.unknown), detail: "the connection returned no response")
        }
        do throws(RequestError) {
            var response = try response(
                exchanged.head, body: exchanged.body, url: url, bodyLimit: bodyLimit, maxRatio: maxRatio)
            if job.record.isRecording {
                response.metrics = RequestMetrics(
                    building: FinishedAttempt(
                        record: job.finishedRecord, url: url, status: response.status, bodyBytes: response.body.count))
            }
            if let refusal = ProxyServer.refusal(of: response, on: job.key) { throw refusal }
            return response
        } catch {
            throw Self.withMetrics(error, of: job, url: url)
        }
    }

    /// `error` with `job`'s attempt as its metrics, ended now.
    static func withMetrics(_ error: RequestError, of job: RequestJob, url: URL) -> RequestError {
        guard job.record.isRecording else { return error }
        var error = error
        error.metrics = RequestMetrics(attempts: [
            job.finishedRecord.attempt(
                url: url, status: error.response?.status, bodyBytes: nil, end: job.pool.clock.now())
        ])
        return error
    }

    /// The job that sends `request`, whose body is in memory, and collects its response. Made apart from the
    /// exchange, whose frame the awaiting task keeps while the response is awaited, so that frame stays small.
    @inline(never)
    private func bufferedJob(
        for request: TransferRequest, to httpURL: HTTPURL, bodyLimit: Int, route: ProxyRoute?
    ) throws(RequestError) -> RequestJob {
        let head = try HTTP1RequestEncoder.RequestHead(request)
        let target = try HTTP1RequestEncoder.target(
            of: httpURL.target, authority: request.built?.authority, tls: tlsConfiguration(for: httpURL)
        ).routed(through: route)
        let body = request.body?.data ?? head.bodyInRequest()
        let bytes = try head.bytes(target: target, bodyLength: body.count)
        return RequestJob(
            key: connectionKey(target.key, for: request, unixSocket: httpURL.unixSocket), pool: try pool(), head: bytes,
            body: body, method: head.method,
            idleTimeout: head.timeout, limits: limits, mode: .buffered(bodyLimit: bodyLimit),
            recordsMetrics: configuration.recordsMetrics)
    }

    /// Hands `job` to the pool and waits for its outcome; cancelling the task cancels the job (a waiting job leaves
    /// the queue, a running one closes its connection). It runs on its caller's executor, as do the transport's other
    /// internal functions on a request's path: the public ones (`send`, `stream`) leave the caller's actor on entry,
    /// and each executor switch spared is about 200 instructions.
    ///
    /// - Returns: A ``RequestJob/Outcome/response(_:)`` or ``RequestJob/Outcome/head(_:)``.
    /// - Throws: The ``RequestError`` for any other outcome.
    nonisolated(nonsending) func perform(_ job: RequestJob, url: URL) async throws(RequestError) -> RequestJob.Outcome {
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<RequestJob.Outcome, Never>) in
                job.begin(continuation)
                job.pool.submit(job, inline: true)
            }
        } onCancel: {
            job.cancel()
        }
        switch outcome {
        case .response, .head:
            return outcome
        default:
            throw Self.withMetrics(failure(of: job, outcome: outcome, url: url), of: job, url: url)
        }
    }

    /// The error of an outcome that is not a response.
    private func failure(of job: RequestJob, outcome: RequestJob.Outcome, url: URL) -> RequestError {
        let key = job.key
        switch outcome {
        case .response, .head:
            return RequestError.transport(URLError(.unknown), detail: "the connection returned a response")
        case .cancelled:
            return RequestError.cancelled(underlyingError: CancellationError())
        case .poolWaitTimedOut(isMultiplexed: true):
            return RequestError.timedOut(
                "no HTTP/2 stream to \(key.host) port \(key.port) came free within "
                    + "\(FoundationMapping.seconds(job.idleTimeout)) s: every connection to it had as many streams "
                    + "open as its server allows at once (SETTINGS_MAX_CONCURRENT_STREAMS)")
        case .poolWaitTimedOut:
            return RequestError.timedOut(
                "no connection to \(key.host) port \(key.port) came free within "
                    + "\(FoundationMapping.seconds(job.idleTimeout)) s (at most \(configuration.maxConnectionsPerHost) "
                    + "per host)")
        case .connectFailed(let failure):
            return Self.connectError(failure, key: key, connectTimeout: configuration.connectTimeout)
        case .failed(let error, let wasReused):
            if case ExchangeFailure.closedBeforeResponse = error, wasReused {
                return RequestError.transport(
                    error,
                    detail: "the kept-alive connection closed before a response, and the request was not retried "
                        + (job.hasRetried ? "twice" : "because \(job.method) is not idempotent"))
            }
            if error is CancellationError { return RequestError.cancelled(underlyingError: error) }
            return Self.requestError(for: error, idleTimeout: job.idleTimeout, key: key, url: url)
        }
    }

    /// The response for a head and its raw body, decoding the body within `bodyLimit` bytes and `maxRatio`.
    func response(
        _ head: ResponseHead, body: Data, url: URL, bodyLimit: Int, maxRatio: Int
    ) throws(RequestError) -> Response {
        var response = Self.response(head, url: url)
        guard !body.isEmpty else { return response }
        let codings = head.tokens(of: "Content-Encoding")
        if let coding = ContentDecoder.unsupportedCoding(in: codings) {
            // Undecoded bytes delivered as the body would read as garbage: the error keeps them as they came.
            response.body = body
            throw RequestError(
                kind: .transport, response: response,
                underlyingError: HTTP1ParseError.unsupportedContentEncoding(coding),
                detail: "the body is in Content-Encoding \(coding), which RequestKit does not decode; "
                    + "error.response holds it as received")
        }
        do {
            if let decoder = try ContentDecoder(
                codings: codings, maxBytes: bodyLimit, maxRatio: maxRatio,
                ratioAllowance: ResponseLimits.decompressionAllowance)
            {
                response.body = try decoder.decode(body)
                try decoder.finish()
            } else {
                response.body = body
            }
        } catch {
            if let tooLarge = ResponseTooLarge(error, head: head, bodyLimit: bodyLimit, maxRatio: maxRatio) {
                throw tooLarge.requestError(url: url)
            }
            throw RequestError.transport(error, detail: "the body could not be decoded")
        }
        return response
    }

    /// The response for a head, with an empty body. The parser has held its `Content-Length` to the pipeline's
    /// rule (``ResponseHead``), so the pipeline does not check it again.
    static func response(_ head: ResponseHead, url: URL?) -> Response {
        var response = Response(status: HTTPStatus(code: head.status), headers: HTTPHeaders(head.fields), url: url)
        response.hasCheckedFraming = true
        return response
    }

    static func isIdempotent(_ method: String) -> Bool {
        switch method {
        case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": return true
        default: return false
        }
    }

    /// The ``RequestError`` for a failure during an exchange on a connection to `key` for `url`.
    static func requestError(
        for error: any Error, idleTimeout: Double, key: ConnectionKey, url: URL? = nil
    ) -> RequestError {
        let seconds = FoundationMapping.seconds(idleTimeout)
        switch error {
        case let error as RequestError:
            return error
        case let error as ResponseTooLarge:
            return error.requestError(url: url)
        case let error as HTTP1ParseError:
            return RequestError.transport(error, detail: error.reason)
        case NetworkSocket.Failure.timedOut:
            return RequestError.timedOut("no data for \(seconds) s")
        case NetworkSocket.Failure.system(let posix):
            guard let failure = RequestError.connectionFailure(for: posix.code) else {
                return RequestError.transport(posix)
            }
            return RequestError.connectionFailed(failure, host: key.host, port: key.port, underlyingError: posix)
        case NetworkSocket.Failure.hostNotFound(let reason):
            return RequestError.connectionFailed(
                .hostNotFound, host: key.host, port: key.port, underlyingError: URLError(.cannotFindHost),
                reason: reason)
        case ExchangeFailure.closedBeforeResponse(let posix):
            return RequestError.connectionFailed(
                .connectionReset, host: key.host, port: key.port, underlyingError: posix ?? POSIXError(.ECONNRESET),
                reason: "the server closed the connection before a response")
        default:
            return RequestError.transport(error)
        }
    }

    /// The ``RequestError`` for a connection to `key` that could not be opened: naming the proxy, when the
    /// connection was to one.
    static func connectError(
        _ failure: NetworkSocket.Failure, key: ConnectionKey, connectTimeout: Double
    ) -> RequestError {
        if let route = key.proxy {
            let place = "the \(route.server.kind.rawValue) proxy for \(key.host) port \(key.port)"
            switch failure {
            case .timedOut:
                return RequestError.timedOut(
                    "could not connect to \(route.server.place) (\(place)) within "
                        + "\(FoundationMapping.seconds(connectTimeout)) s")
            case .system(let posix):
                guard let reason = RequestError.connectionFailure(for: posix.code) else {
                    return RequestError.transport(
                        posix, detail: "could not connect to \(route.server.place) (\(place))")
                }
                return RequestError.connectionFailed(
                    reason, host: route.server.host, port: route.server.port, underlyingError: posix, reason: place)
            case .hostNotFound(let why):
                return RequestError.connectionFailed(
                    .hostNotFound, host: route.server.host, port: route.server.port,
                    underlyingError: URLError(.cannotFindHost), reason: "\(place): \(why)")
            }
        }
        switch failure {
        case .timedOut:
            return RequestError.timedOut(
                "could not connect to \(key.host) port \(key.port) within \(FoundationMapping.seconds(connectTimeout)) s"
            )
        case .system(let posix) where RequestError.connectionFailure(for: posix.code) == nil:
            return RequestError.transport(posix, detail: "could not connect to \(key.host) port \(key.port)")
        default:
            return requestError(for: failure, idleTimeout: 0, key: key)
        }
    }
}

/// The name ``NativeTransport`` had before it spoke HTTP/2 as well; it still compiles, with a warning that names the
/// new one.
///
/// ```swift
/// let transport = NativeTransport { $0.maxConnectionsPerHost = 4 }  // was HTTP1Transport { … }
/// ```
@available(*, deprecated, renamed: "NativeTransport")
public typealias HTTP1Transport = NativeTransport

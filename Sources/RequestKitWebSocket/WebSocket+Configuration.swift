import RequestKitModel

extension WebSocket {
    /// The limits and behaviour of one WebSocket connection, written among its components.
    ///
    /// A server controls what it sends, so what it can make the client hold is bounded: a frame
    /// (``maxFrameBytes``), a message once joined and inflated (``maxMessageBytes``, ``maxDecompressionRatio``), and
    /// the messages received but not consumed yet (``maxQueuedMessages``, ``maxQueuedBytes``), past which the socket
    /// is not read until the consumer catches up. Each limit passed fails the connection with a ``RequestError``
    /// whose ``RequestError/webSocketFailure`` is ``RequestError/WebSocketFailure/messageTooLarge``.
    ///
    /// ```swift
    /// WebSocket {
    ///     Url("wss://api.example.com/feed")
    ///     WebSocket.Configuration(maxMessageBytes: 1 << 20, pingInterval: .seconds(20))
    /// }
    /// ```
    public struct Configuration: RequestComponent, Hashable {
        /// The largest message accepted, in bytes, after joining its frames and inflating it. 16 MiB by default.
        ///
        /// ```swift
        /// configuration.maxMessageBytes = 64 << 10
        /// ```
        public var maxMessageBytes: Int
        /// The largest frame accepted, in bytes; a larger one fails as soon as its head arrives. 16 MiB by default.
        ///
        /// ```swift
        /// configuration.maxFrameBytes = 1 << 20
        /// ```
        public var maxFrameBytes: Int
        /// How many times the compressed bytes a message may inflate to, once it is past 1 MiB (a "zip bomb"). 100
        /// by default, as ``ResponseLimits/maxDecompressionRatio``.
        ///
        /// ```swift
        /// configuration.maxDecompressionRatio = 20
        /// ```
        public var maxDecompressionRatio: Int
        /// How many received messages wait for the consumer before the socket stops being read. 128 by default.
        ///
        /// ```swift
        /// configuration.maxQueuedMessages = 16
        /// ```
        public var maxQueuedMessages: Int
        /// How many bytes of received messages wait for the consumer before the socket stops being read (a message
        /// larger than this is still delivered, alone). 8 MiB by default.
        ///
        /// ```swift
        /// configuration.maxQueuedBytes = 1 << 20
        /// ```
        public var maxQueuedBytes: Int
        /// The largest frame the client sends: a longer message goes out in fragments of this size. 1 MiB by default.
        ///
        /// ```swift
        /// configuration.outgoingFrameBytes = 64 << 10
        /// ```
        public var outgoingFrameBytes: Int
        /// How often a keep-alive ping is sent; a ping with no pong by the next one ends the connection as dead
        /// (``RequestError/WebSocketFailure/pingTimeout``). Nil (the default) sends none.
        ///
        /// ```swift
        /// configuration.pingInterval = .seconds(30)
        /// ```
        public var pingInterval: Duration?
        /// How long the closing handshake may take before the connection is closed without it. 10 s by default.
        ///
        /// ```swift
        /// configuration.closeTimeout = .seconds(2)
        /// ```
        public var closeTimeout: Duration
        /// What is offered for permessage-deflate; nil offers no compression. Offered by default.
        ///
        /// ```swift
        /// configuration.compression = nil
        /// ```
        public var compression: Compression?
        /// Whether a `wss://` socket offers HTTP/2 and opens on an HTTP/2 stream with extended CONNECT (RFC 8441)
        /// when the server allows it; otherwise it upgrades over HTTP/1.1 as usual. A server that picks HTTP/2
        /// without allowing extended CONNECT costs a second connection, which offers HTTP/1.1 only (the transport
        /// remembers the origin, and offers it HTTP/1.1 alone for five minutes, twice as long after each refusal that
        /// follows, up to a day). False by default.
        /// Only the native transport's TLS layer (Linux) offers HTTP/2; `ws://` always upgrades over HTTP/1.1.
        ///
        /// ```swift
        /// configuration.prefersHTTP2 = true
        /// ```
        public var prefersHTTP2: Bool

        /// A configuration; every parameter has a default. Values that make no sense (not positive) are reported
        /// when the socket's definition is checked.
        ///
        /// ```swift
        /// let configuration = WebSocket.Configuration(maxMessageBytes: 1 << 20, compression: nil)
        /// ```
        public init(
            maxMessageBytes: Int = 16 << 20, maxFrameBytes: Int = 16 << 20, maxDecompressionRatio: Int = 100,
            maxQueuedMessages: Int = 128, maxQueuedBytes: Int = 8 << 20, outgoingFrameBytes: Int = 1 << 20,
            pingInterval: Duration? = nil, closeTimeout: Duration = .seconds(10),
            compression: Compression? = Compression(), prefersHTTP2: Bool = false
        ) {
            self.maxMessageBytes = maxMessageBytes
            self.maxFrameBytes = maxFrameBytes
            self.maxDecompressionRatio = maxDecompressionRatio
            self.maxQueuedMessages = maxQueuedMessages
            self.maxQueuedBytes = maxQueuedBytes
            self.outgoingFrameBytes = outgoingFrameBytes
            self.pingInterval = pingInterval
            self.closeTimeout = closeTimeout
            self.compression = compression
            self.prefersHTTP2 = prefersHTTP2
        }

        /// Replaces the socket's configuration (the defaults) with this one.
        public func apply(to parts: inout RequestParts) {
            parts[option: WebSocketConfigurationKey.self] = self
        }

        /// What is wrong with the configuration, if anything.
        var problems: [RequestProblem] {
            var problems: [RequestProblem] = []
            let sizes = [
                ("maxMessageBytes", maxMessageBytes), ("maxFrameBytes", maxFrameBytes),
                ("maxDecompressionRatio", maxDecompressionRatio), ("maxQueuedMessages", maxQueuedMessages),
                ("maxQueuedBytes", maxQueuedBytes), ("outgoingFrameBytes", outgoingFrameBytes),
            ]
            for (name, value) in sizes where value <= 0 {
                problems.append(RequestProblem(.invalidComponent, "\(name) must be positive, not \(value)"))
            }
            if let pingInterval, pingInterval <= .zero {
                problems.append(RequestProblem(.invalidComponent, "pingInterval must be positive, not \(pingInterval)"))
            }
            if closeTimeout <= .zero {
                problems.append(RequestProblem(.invalidComponent, "closeTimeout must be positive, not \(closeTimeout)"))
            }
            return problems + (compression?.problems ?? [])
        }
    }
}

/// The socket's configuration, as its components set it.
package enum WebSocketConfigurationKey: RequestOptionKey {
    package static let defaultValue = WebSocket.Configuration()
}

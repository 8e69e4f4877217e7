import RequestKitModel

extension WebSocket {
    /// What the client offers for permessage-deflate (RFC 7692), the compression of whole messages with the system
    /// zlib: set as ``Configuration/compression``, offered by default, off with `nil`.
    ///
    /// The server decides: it may refuse the extension, or take it with stricter parameters. Without context
    /// takeover a side compresses each message on its own (less memory kept between messages, larger messages on
    /// the wire); a smaller window (8 to 15 bits, 256 bytes to 32 KiB) bounds the memory a side's compressor may
    /// make the other's decompressor keep. Incoming compressed messages are bounded by
    /// ``Configuration/maxMessageBytes`` and ``Configuration/maxDecompressionRatio`` once inflated.
    ///
    /// ```swift
    /// WebSocket {
    ///     Url("wss://api.example.com/feed")
    ///     WebSocket.Configuration(compression: WebSocket.Compression(serverNoContextTakeover: true))
    /// }
    /// ```
    public struct Compression: Sendable, Hashable {
        /// Asks the server to compress each message on its own (`server_no_context_takeover`).
        ///
        /// ```swift
        /// compression.serverNoContextTakeover = true
        /// ```
        public var serverNoContextTakeover: Bool
        /// Tells the server that the client compresses each message on its own (`client_no_context_takeover`).
        ///
        /// ```swift
        /// compression.clientNoContextTakeover = true
        /// ```
        public var clientNoContextTakeover: Bool
        /// The largest window the server may compress with, 8 to 15 (`server_max_window_bits`); nil asks for none.
        ///
        /// ```swift
        /// compression.serverMaxWindowBits = 10  // the server's window is at most 1 KiB
        /// ```
        public var serverMaxWindowBits: Int?
        /// The largest window the client compresses with, 8 to 15 (`client_max_window_bits`); nil (the default)
        /// offers the parameter without a value, letting the server choose.
        ///
        /// ```swift
        /// compression.clientMaxWindowBits = 12
        /// ```
        public var clientMaxWindowBits: Int?

        /// An offer of permessage-deflate. A window outside 8–15 is reported when the socket's definition is checked.
        ///
        /// ```swift
        /// let compression = WebSocket.Compression(serverNoContextTakeover: true, serverMaxWindowBits: 12)
        /// ```
        public init(
            serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
            serverMaxWindowBits: Int? = nil, clientMaxWindowBits: Int? = nil
        ) {
            self.serverNoContextTakeover = serverNoContextTakeover
            self.clientNoContextTakeover = clientNoContextTakeover
            self.serverMaxWindowBits = serverMaxWindowBits
            self.clientMaxWindowBits = clientMaxWindowBits
        }

        /// What is wrong with the offer, if anything.
        var problems: [RequestProblem] {
            var problems: [RequestProblem] = []
            for (name, bits) in [("server", serverMaxWindowBits), ("client", clientMaxWindowBits)] {
                if let bits, !(8...15).contains(bits) {
                    problems.append(
                        RequestProblem(
                            .invalidComponent, "\(name)MaxWindowBits must be between 8 and 15, not \(bits)"))
                }
            }
            return problems
        }
    }
}

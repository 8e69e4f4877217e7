#if canImport(CNghttp2) && os(Linux)
extension ScriptedHTTP2Server {
    /// What the clients of a ``ScriptedHTTP2Server`` sent it, over every connection.
    ///
    /// ```swift
    /// let record = await server.recorded { !$0.resetCodes.isEmpty }
    /// #expect(record.resetCodes == [0x8])  // CANCEL
    /// #expect(record.connections == 1)
    /// ```
    struct Record: Sendable {
        /// The connections accepted.
        var connections = 0
        /// The streams the clients opened (their `HEADERS` frames that the scripts read).
        var requests = 0
        /// The error code of each `GOAWAY` read, in order.
        var goAwayCodes: [UInt32] = []
        /// The error code of each `RST_STREAM` read, in order.
        var resetCodes: [UInt32] = []
    }
}
#endif

import RequestKitModel

extension NativeTransport {
    /// The pool key of `request` to `key`'s origin: through the Unix socket `unixSocket` when there is one, else
    /// with the addresses the request's own DNS overrides fix (``TransferRequest/dnsOverrides``), over the
    /// transport's, so that its connections are pooled apart.
    func connectionKey(
        _ key: ConnectionKey, for request: TransferRequest, unixSocket: SocketAddress?
    ) -> ConnectionKey {
        if unixSocket != nil { return key.through(unixSocket) }
        if request.dnsOverrides.isEmpty { return key }
        return key.overridden(by: request.dnsOverrides, over: configuration.dnsOverrides)
    }
}

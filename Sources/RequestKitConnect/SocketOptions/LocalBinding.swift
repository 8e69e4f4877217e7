import RequestKitModel

/// Which local address or network interface a connection leaves from (curl's `--interface` and `--local-port`
/// without the port): a multi-homed host, a VPN interface, a source address a firewall allows.
///
/// ```swift
/// let binding = LocalBinding(interface: "eth1")
/// let fromAddress = LocalBinding(addresses: [SocketAddress(ip: "192.0.2.10", port: 0)].compactMap { $0 })
/// ```
public struct LocalBinding: Sendable, Hashable {
    /// The interface to send through (`SO_BINDTODEVICE` on Linux, which needs `CAP_NET_RAW` on kernels before 5.7;
    /// `IP_BOUND_IF` on Apple platforms); nil for any.
    public var interface: String?
    /// The local addresses to bind, at most one per family: an attempt to an IPv6 server binds the IPv6 one. An
    /// attempt of a family with no address here is not bound to an address.
    public var addresses: [SocketAddress]

    /// Leaves through `interface`.
    ///
    /// ```swift
    /// let binding = LocalBinding(interface: "eth1")
    /// ```
    public init(interface: String) {
        self.interface = interface
        addresses = []
    }

    /// Leaves from `addresses` (their ports are usually 0, any free port), and through `interface` when given.
    ///
    /// ```swift
    /// let binding = LocalBinding(addresses: [SocketAddress(ip: "192.0.2.10", port: 0)].compactMap { $0 })
    /// ```
    public init(addresses: [SocketAddress], interface: String? = nil) {
        self.addresses = addresses.filter { $0.family != .unix }
        self.interface = interface
    }

    /// The address to bind for an attempt of `family`; nil when none is of that family.
    package func address(for family: SocketAddress.Family) -> SocketAddress? {
        addresses.first { $0.family == family }
    }
}

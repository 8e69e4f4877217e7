/// Hears of each connection of a ``NativeTransport``'s pool as it opens, goes from carrying requests to idle and
/// back, and closes: what the Metrics trait counts as OpenTelemetry's `http.client.open_connections`. Set through
/// ``NativeTransport/Configuration/connectionObservers``; package-level, since only the traits observe.
///
/// Calls come from any thread (the pool's loops, the tasks that submit requests), after the pool's lock is released,
/// so two changes of one connection may arrive out of order; each change comes once, with the state it left, so a
/// counter that takes one away for `old` and adds one for `new` ends right whatever the order.
///
/// ```swift
/// struct Counter: ConnectionObserver {
///     func connectionChanged(from old: ObservedConnection?, to new: ObservedConnection?) { … }
/// }
/// let transport = NativeTransport { $0.connectionObservers = [Counter()] }
/// ```
package protocol ConnectionObserver: Sendable {
    /// A connection changed: `old` is how it stood (nil: it was not open yet), `new` how it stands (nil: it closed).
    func connectionChanged(from old: ObservedConnection?, to new: ObservedConnection?)
}

/// An open connection of the pool as its observers see it: where it goes, what it speaks, and whether it carries a
/// request.
///
/// ```swift
/// let connection = ObservedConnection(host: "example.com", port: 443, isSecure: true, protocolVersion: "2", state: .active)
/// ```
package struct ObservedConnection: Sendable, Hashable {
    /// Whether a connection carries requests.
    package enum State: Sendable, Hashable {
        /// It carries none: it waits in the pool for the next one.
        case idle
        /// It carries at least one.
        case active
    }

    /// The origin's host (an IPv6 address without brackets), through a proxy too.
    package let host: String
    /// The origin's port.
    package let port: Int
    /// Whether it is TLS to the origin (`https`).
    package let isSecure: Bool
    /// What it speaks, as OpenTelemetry's `network.protocol.version` spells it: `1.1` or `2`.
    package let protocolVersion: String
    package var state: State

    package init(host: String, port: Int, isSecure: Bool, protocolVersion: String, state: State) {
        self.host = host
        self.port = port
        self.isSecure = isSecure
        self.protocolVersion = protocolVersion
        self.state = state
    }
}

import Foundation
import RequestKitModel

/// One address a connection race tried, when, and how it ended: what the metrics and a failure's message show.
///
/// Times are the owner's monotonic nanoseconds, as it passed them to the race.
///
/// ```swift
/// for attempt in failure.attempts { print(attempt) }  // [2001:db8::1]:443 timed out after 10 s
/// ```
package struct ConnectAttemptRecord: Sendable, Hashable, CustomStringConvertible {
    /// How an attempt ended.
    package enum Outcome: Sendable, Hashable, CustomStringConvertible {
        /// It connected and won the race.
        case connected
        /// The system refused or ended it (`ECONNREFUSED`, `ENETUNREACH`, `EHOSTUNREACH`, ...).
        case failed(POSIXErrorCode)
        /// Another address connected first, so it was closed while still pending.
        case lostRace
        /// The race's deadline (the request's connect timeout) passed while it was pending.
        case timedOut
        /// The race was cancelled (the request was) while it was pending.
        case abandoned

        package var description: String {
            switch self {
            case .connected: "connected"
            case .failed(let code): "failed (\(Self.name(of: code)): \(String(cString: strerror(code.rawValue))))"
            case .lostRace: "closed: another address connected first"
            case .timedOut: "timed out"
            case .abandoned: "abandoned: the request was cancelled"
            }
        }

        /// The symbolic name of common connection errors (`ECONNREFUSED`), else the number.
        private static func name(of code: POSIXErrorCode) -> String {
            switch code {
            case .ECONNREFUSED: "ECONNREFUSED"
            case .ENETUNREACH: "ENETUNREACH"
            case .EHOSTUNREACH: "EHOSTUNREACH"
            case .ETIMEDOUT: "ETIMEDOUT"
            case .ECONNRESET: "ECONNRESET"
            case .EADDRNOTAVAIL: "EADDRNOTAVAIL"
            case .EACCES: "EACCES"
            case .ENOENT: "ENOENT"
            default: "errno \(code.rawValue)"
            }
        }
    }

    /// The address tried.
    package let address: SocketAddress
    /// When the attempt started.
    package let started: UInt64
    /// When it ended; nil while pending.
    package var ended: UInt64?
    /// How it ended; nil while pending.
    package var outcome: Outcome?

    package init(address: SocketAddress, started: UInt64, ended: UInt64? = nil, outcome: Outcome? = nil) {
        self.address = address
        self.started = started
        self.ended = ended
        self.outcome = outcome
    }

    /// Whether it has not ended yet.
    package var isPending: Bool { outcome == nil }

    /// `[2001:db8::1]:443 timed out after 250 ms`.
    package var description: String {
        guard let outcome else { return "\(address) pending" }
        guard let ended, ended >= started else { return "\(address) \(outcome)" }
        return "\(address) \(outcome) after \(Self.milliseconds(ended - started))"
    }

    /// A duration in nanoseconds as whole milliseconds (`250 ms`).
    static func milliseconds(_ nanoseconds: UInt64) -> String {
        "\(nanoseconds / 1_000_000) ms"
    }
}

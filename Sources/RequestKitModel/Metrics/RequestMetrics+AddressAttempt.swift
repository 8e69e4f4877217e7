import Foundation

extension RequestMetrics {
    /// One address a new connection tried, when, and how the attempt ended: the race of a host's IPv6 and IPv4
    /// addresses (Happy Eyeballs, RFC 8305) as ``Attempt/addressAttempts`` lists it.
    ///
    /// ```swift
    /// for tried in attempt.addressAttempts {
    ///     print(tried)   // [2001:db8::1]:443 timed out after 250.0 ms
    /// }
    /// ```
    public struct AddressAttempt: Sendable, Hashable, CustomStringConvertible {
        /// The address and port tried (`192.0.2.7:443`, `[2001:db8::1]:443`, `unix:/run/app.sock`).
        public var address: String
        /// When the attempt started and ended.
        public var interval: Interval
        /// How it ended.
        public var outcome: Outcome

        /// An attempt to `address` over `interval` that ended with `outcome`.
        ///
        /// ```swift
        /// let tried = RequestMetrics.AddressAttempt(
        ///     address: "192.0.2.7:443", interval: RequestMetrics.Interval(start: .now, end: .now), outcome: .connected)
        /// ```
        public init(address: String, interval: Interval, outcome: Outcome) {
            self.address = address
            self.interval = interval
            self.outcome = outcome
        }

        /// `192.0.2.7:443 connected after 1.2 ms`.
        public var description: String {
            "\(address) \(outcome) after \(Attempt.milliseconds(interval.duration)) ms"
        }

        /// How an address attempt ended: an open set, compared by ``name``.
        ///
        /// ```swift
        /// if tried.outcome == .lostRace { print("another address connected first") }
        /// ```
        public struct Outcome: Sendable, Hashable, CustomStringConvertible {
            /// A stable name for the outcome (`connected`, `failed`, `lostRace`, `timedOut`, `cancelled`).
            public let name: String
            /// The system's error, for ``failed(_:)``.
            public let errorCode: POSIXErrorCode?

            /// An outcome with a stable name and, for a failure, the system's error.
            ///
            /// ```swift
            /// let outcome = RequestMetrics.AddressAttempt.Outcome(name: "failed", errorCode: .ECONNREFUSED)
            /// ```
            public init(name: String, errorCode: POSIXErrorCode? = nil) {
                self.name = name
                self.errorCode = errorCode
            }

            /// It connected and won the race.
            public static let connected = Self(name: "connected")
            /// Another address connected first, so it was closed while still pending.
            public static let lostRace = Self(name: "lostRace")
            /// The connect timeout (or the request's) passed while it was pending.
            public static let timedOut = Self(name: "timedOut")
            /// The request was cancelled while it was pending.
            public static let cancelled = Self(name: "cancelled")

            /// The system refused or ended it (`ECONNREFUSED`, `ENETUNREACH`, ...).
            ///
            /// ```swift
            /// if tried.outcome == .failed(.ECONNREFUSED) { print("nothing listens there") }
            /// ```
            public static func failed(_ code: POSIXErrorCode) -> Self { Self(name: "failed", errorCode: code) }

            /// `connected`, `failed (ECONNREFUSED: Connection refused)`, `lost the race`, `timed out`, `cancelled`.
            public var description: String {
                switch name {
                case "lostRace": return "lost the race"
                case "timedOut": return "timed out"
                case "failed":
                    guard let errorCode else { return "failed" }
                    return "failed (\(String(cString: strerror(errorCode.rawValue))))"
                default: return name
                }
            }
        }
    }
}

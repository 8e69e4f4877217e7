import Foundation
import RequestKitModel

/// Why a connection race to a host ended without a connection: what the queries answered, every address tried and
/// how each ended.
///
/// ```swift
/// print(failure)
/// // Could not connect to example.com port 443 (timed out): [2001:db8::1]:443 timed out after 10000 ms;
/// // 192.0.2.7:443 failed (ECONNREFUSED: Connection refused) after 1 ms
/// ```
package struct ConnectRaceFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the race ended.
    package enum Reason: Sendable, Hashable {
        /// The deadline passed first.
        case timedOut
        /// Neither query found an address, so nothing was tried.
        case noAddress
        /// Every address was tried and each failed.
        case everyAttemptFailed
    }

    package let host: String
    package let port: Int
    package let reason: Reason
    /// Every address tried, in the order tried.
    package let attempts: [ConnectAttemptRecord]
    /// What the `AAAA` and `A` queries answered.
    package let ipv6Answer: HappyEyeballsStateMachine.FamilyAnswer
    package let ipv4Answer: HappyEyeballsStateMachine.FamilyAnswer

    package var description: String {
        let what: String
        switch reason {
        case .timedOut: what = "timed out"
        case .noAddress: what = "no address"
        case .everyAttemptFailed: what = "every address failed"
        }
        var parts: [String] = []
        if attempts.isEmpty || reason == .noAddress {
            parts.append("AAAA: \(Self.describe(ipv6Answer)), A: \(Self.describe(ipv4Answer))")
        }
        parts += attempts.map(\.description)
        return "Could not connect to \(host) port \(port) (\(what)): " + parts.joined(separator: "; ")
    }

    /// The failure as the request's error: a timeout, a host not found, or the connection failure the last
    /// attempt's system error stands for (refused when it stands for none), keeping this failure as the
    /// underlying error.
    package var requestError: RequestError {
        switch reason {
        case .timedOut:
            return .timedOut(description, underlyingError: self)
        case .noAddress:
            return .connectionFailed(.hostNotFound, host: host, port: port, underlyingError: self, reason: description)
        case .everyAttemptFailed:
            var failure = RequestError.ConnectionFailure.connectionRefused
            if case .failed(let code)? = attempts.last?.outcome,
                let known = RequestError.connectionFailure(for: code)
            {
                failure = known
            }
            return .connectionFailed(failure, host: host, port: port, underlyingError: self, reason: description)
        }
    }

    private static func describe(_ answer: HappyEyeballsStateMachine.FamilyAnswer) -> String {
        switch answer {
        case .pending: "no answer"
        case .addresses(let count): count == 1 ? "1 address" : "\(count) addresses"
        case .failed(let failure): failure.message
        case .notAsked: "not asked"
        }
    }
}

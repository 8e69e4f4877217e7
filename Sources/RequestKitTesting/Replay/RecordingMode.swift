import Foundation
import RequestKit

/// What a ``RecordingTransport`` does with its cassette: replay only, record, or neither.
///
/// The mode given in code can be overridden for a whole run with the environment variable
/// `REQUESTKIT_RECORD_MODE` (`replayOnly`, `recordOnce`, `recordNew`, `recordAll` or `passthrough`), so that a
/// developer re-records without editing tests:
///
/// ```sh
/// REQUESTKIT_RECORD_MODE=recordAll swift test --filter LoginFlowTests
/// ```
public struct RecordingMode: Sendable, Hashable, CustomStringConvertible {
    enum Behavior: String, Sendable, CaseIterable {
        case replayOnly, recordOnce, recordNew, recordAll, passthrough
    }

    let behavior: Behavior

    /// Answers from the cassette only, never from the network: a request the cassette does not hold fails with an
    /// error naming it, the closest recorded request and what differs. The default, and what CI should run.
    ///
    /// ```swift
    /// let transport = try RecordingTransport(cassette: url, mode: .replayOnly)
    /// ```
    public static let replayOnly = Self(behavior: .replayOnly)
    /// Records every exchange when the cassette does not exist yet; replays only when it does.
    ///
    /// ```swift
    /// let transport = try RecordingTransport(cassette: url, mode: .recordOnce)
    /// ```
    public static let recordOnce = Self(behavior: .recordOnce)
    /// Replays what the cassette holds and sends (and records) every request it does not.
    ///
    /// ```swift
    /// let transport = try RecordingTransport(cassette: url, mode: .recordNew)
    /// ```
    public static let recordNew = Self(behavior: .recordNew)
    /// Sends every request and records a new cassette, replacing the old one.
    ///
    /// ```swift
    /// let transport = try RecordingTransport(cassette: url, mode: .recordAll)
    /// ```
    public static let recordAll = Self(behavior: .recordAll)
    /// Sends every request and neither reads nor writes the cassette.
    ///
    /// ```swift
    /// let transport = try RecordingTransport(cassette: url, mode: .passthrough)
    /// ```
    public static let passthrough = Self(behavior: .passthrough)

    /// The environment variable that overrides the mode given in code.
    public static let environmentVariable = "REQUESTKIT_RECORD_MODE"

    /// The mode named `name` (`replayOnly`, `recordOnce`, `recordNew`, `recordAll` or `passthrough`, any case).
    ///
    /// ```swift
    /// RecordingMode("recordAll") == .recordAll  // true
    /// ```
    public init?(_ name: String) {
        guard let behavior = Behavior.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
            return nil
        }
        self.behavior = behavior
    }

    private init(behavior: Behavior) {
        self.behavior = behavior
    }

    /// The mode's name, as the environment variable spells it.
    public var description: String { behavior.rawValue }

    /// `mode`, unless `environment` names another in ``environmentVariable``.
    ///
    /// - Throws: `RequestError` when the variable names no mode: a misspelt override must not silently replay.
    static func effective(_ mode: RecordingMode, environment: [String: String]) throws(RequestError) -> RecordingMode {
        guard let name = environment[environmentVariable], !name.isEmpty else { return mode }
        guard let override = RecordingMode(name) else {
            let names = Behavior.allCases.map(\.rawValue).joined(separator: ", ")
            throw ReplayFailure.error("\(environmentVariable)=\(name) names no recording mode; use one of \(names)")
        }
        return override
    }
}

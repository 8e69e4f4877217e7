import Foundation
import RequestKit

extension RecordingTransport {
    /// How a ``RecordingTransport`` matches, redacts and stores exchanges.
    ///
    /// ```swift
    /// var configuration = RecordingTransport.Configuration()
    /// configuration.matching.ignoredQueryItems = ["nonce"]
    /// configuration.redaction.sensitiveData.headerNames.insert("x-tenant-secret")
    /// let transport = try RecordingTransport(cassette: url, configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// How a sent request is matched to a recorded one.
        public var matching: ReplayMatching
        /// What is removed before an exchange is stored.
        public var redaction: ReplayRedaction
        /// Bodies longer than this many bytes are kept in a side file next to the cassette (`name.bodies/`); 64 KiB
        /// by default.
        public var largeBodyThreshold: Int
        /// Whether a request body sent from a file is recorded with its content; by default only its SHA-256 and
        /// size are, which replay compares.
        public var recordsFileBodies: Bool
        /// The clock a replayed stream waits on to deliver each chunk at the time it was recorded (after the head);
        /// nil (the default) delivers every chunk at once.
        ///
        /// ```swift
        /// configuration.pacing = .continuous  // a replayed event stream arrives as slowly as it was recorded
        /// ```
        public var pacing: RequestClock?

        /// The defaults, with the changes given.
        ///
        /// ```swift
        /// let configuration = RecordingTransport.Configuration(largeBodyThreshold: 1 << 20)
        /// ```
        /// - Parameters:
        ///   - matching: The matching rules.
        ///   - redaction: The redaction rules.
        ///   - largeBodyThreshold: The body length over which a body goes to a side file.
        ///   - recordsFileBodies: Whether file bodies are recorded with their content.
        ///   - pacing: The clock a replayed stream keeps the recorded pace on, or nil.
        public init(
            matching: ReplayMatching = ReplayMatching(), redaction: ReplayRedaction = ReplayRedaction(),
            largeBodyThreshold: Int = 64 * 1024, recordsFileBodies: Bool = false, pacing: RequestClock? = nil
        ) {
            self.matching = matching
            self.redaction = redaction
            self.largeBodyThreshold = max(0, largeBodyThreshold)
            self.recordsFileBodies = recordsFileBodies
            self.pacing = pacing
        }
    }
}

import Foundation
import RequestKitModel

/// Where the pipeline delivers a response body.
enum ResponseSink: Sendable {
    /// Collected in memory (`send` and its conveniences), reporting download progress as it arrives.
    case memory(progress: (@Sendable (TransferProgress) -> Void)?)
    /// Handed to the caller as a stream (`stream`, `download`, `events`), buffering at most `bufferLimit` bytes.
    case consumer(bufferLimit: Int)
}

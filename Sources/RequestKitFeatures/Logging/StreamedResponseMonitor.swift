import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``EventMonitor`` that hears when a streamed response's body ends, not only its head: the traits' spans and
/// request durations end with the body. Package-level: only the traits' monitors take part.
///
/// For an attempt whose response streams (`stream()`, a generated OpenAPI client), the pipeline calls
/// ``responseStreamed(_:for:attempt:)`` instead of ``EventMonitor/responseReceived(_:for:duration:attempt:)``, and
/// the handler it returns once when the body ends, from whichever thread ends it: with nil when the body arrived
/// whole, its failure otherwise (a cancellation when its consumer stopped or went before its end), and the seconds
/// since the attempt was sent. ``EventMonitor/requestFinished(_:metrics:)`` still comes at the head, so it may come
/// before the handler.
///
/// ```swift
/// struct BodyTimer: StreamedResponseMonitor {
///     func responseStreamed(_ response: Response, for request: URLRequest, attempt: Int)
///         -> (@Sendable (RequestError?, Double) -> Void)?
///     {
///         { failure, seconds in print(response.statusCode, failure?.kind.name ?? "whole", seconds) }
///     }
/// }
/// ```
package protocol StreamedResponseMonitor: EventMonitor {
    /// Attempt `attempt` of `request` got `response`'s head, with its body still to come: returns what to call when
    /// the body ends, or nil for nothing.
    func responseStreamed(
        _ response: Response, for request: URLRequest, attempt: Int
    ) -> (@Sendable (RequestError?, Double) -> Void)?
}

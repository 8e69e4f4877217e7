import Foundation
import RequestKitModel

/// A buffered response's attempt as its job's record left it, made into a ``RequestMetrics/Attempt`` only if the
/// response's metrics are read (``RequestMetrics/init(building:)``).
///
/// ```swift
/// response.metrics = RequestMetrics(
///     building: FinishedAttempt(record: record, url: url, status: .ok, bodyBytes: 118))
/// ```
final class FinishedAttempt: UnbuiltAttempt {
    private let record: AttemptRecord
    private let url: URL
    private let status: HTTPStatus
    private let bodyBytes: Int

    /// The attempt of `record`, which ended with `status` and `bodyBytes` of decoded body.
    init(record: AttemptRecord, url: URL, status: HTTPStatus, bodyBytes: Int) {
        self.record = record
        self.url = url
        self.status = status
        self.bodyBytes = bodyBytes
    }

    var attempt: RequestMetrics.Attempt {
        record.attempt(url: url, status: status, bodyBytes: bodyBytes, end: record.complete)
    }
}

import RequestKitModel

/// How a WebSocket connection ended, as its consumer learns it: a closing handshake whose code ends the messages
/// quietly, or a failure.
///
/// ```swift
/// switch ending {
/// case .closed(let code, let reason): print("closed", code, reason)
/// default: throw ending.error ?? RequestError.cancelled()
/// }
/// ```
package enum WebSocketEnding: Sendable, Hashable {
    /// The connection closed with a close frame whose code is normal closure, going away or none
    /// (``WebSocketCloseCode/noStatusReceived``), or with the answer to this end's close: the messages end.
    case closed(WebSocketCloseCode, reason: String)
    /// The connection failed: a rule broken, a limit passed, a close with an error code, no closing handshake, an
    /// unanswered ping or close. `kind` is ``RequestError/Kind/webSocket`` or ``RequestError/Kind/timedOut``.
    case failed(WebSocketFailureRecord, kind: RequestError.Kind)
    /// The consumer went away (its task was cancelled).
    case cancelled
    /// The byte stream failed; the connection that owns it has its error.
    case streamFailed

    /// The error the consumer sees; nil for ``closed(_:reason:)``, and for ``streamFailed``, whose error the
    /// stream has.
    package var error: RequestError? {
        switch self {
        case .closed, .streamFailed: nil
        case .failed(let record, let kind): RequestError(kind: kind, underlyingError: record, detail: record.message)
        case .cancelled: RequestError.cancelled()
        }
    }

    /// A failure.
    static func failure(
        _ failure: RequestError.WebSocketFailure, _ message: String, kind: RequestError.Kind = .webSocket,
        closeCode: WebSocketCloseCode? = nil, closeReason: String? = nil
    ) -> WebSocketEnding {
        .failed(
            WebSocketFailureRecord(failure: failure, message: message, closeCode: closeCode, closeReason: closeReason),
            kind: kind)
    }
}

import Foundation
import RequestKitModel
import RequestKitWebSocket

/// A transport that can open a WebSocket connection: the native transport, and transports over it that record or
/// replay what it does. `WebSocket.connect()` refuses any other transport with an invalid request, rather than
/// connecting past it.
///
/// ```swift
/// if let opening = transport as? any WebSocketOpening {
///     let socket = try await opening.openWebSocket(checked, request: checked.request)
/// }
/// ```
package protocol WebSocketOpening: Transport {
    /// Opens a WebSocket connection for the checked definition, `request` as the handshake's request (the
    /// definition's own, with the cookie jar's cookies when the pipeline added them).
    ///
    /// - Throws: ``RequestError``: the connection's failures as a request's, a refused or broken handshake, a
    ///   cancellation.
    func openWebSocket(
        _ checked: WebSocket.Checked, request: BuiltRequest
    ) async throws(RequestError) -> WebSocket.Socket
}

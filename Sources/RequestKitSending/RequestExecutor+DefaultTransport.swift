import RequestKitModel
import RequestKitNativeTransport
import RequestKitPipeline

/// The verbs choose the transport of a request whose ``Using`` names none: the process's default
/// (`DefaultTransport.shared`: `NativeTransport.shared` on Linux), handed to the pipeline, which never picks one.
extension RequestExecutor {
    /// Builds and sends `parts` over its transport or the default one, returning the response with its whole body.
    @inline(__always)
    package nonisolated(nonsending) static func send(
        _ parts: consuming RequestParts
    ) async throws(RequestError) -> Response {
        try await send(consume parts, defaultTransport: DefaultTransport.shared)
    }

    /// Builds and sends `parts` over its transport or the default one, returning at the response head with the body
    /// still streaming.
    @inline(__always)
    package nonisolated(nonsending) static func stream(
        _ parts: RequestParts, bufferLimit: Int = TransferRequest.defaultBufferLimit
    ) async throws(RequestError) -> StreamingResponse {
        try await stream(parts, bufferLimit: bufferLimit, defaultTransport: DefaultTransport.shared)
    }
}

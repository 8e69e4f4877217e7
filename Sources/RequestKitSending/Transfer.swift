import Foundation
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel

/// A transfer running in its own task: its progress as an `AsyncSequence`, and its result.
///
/// The progress sequence ends when the transfer does; it keeps only the newest values when the reader falls
/// behind, so the last value is always delivered. Cancelling the transfer cancels its task and closes the
/// connection.
///
/// ```swift
/// let transfer = request.downloadTransfer(to: destination)
/// for await progress in transfer.progress {
///     print(progress.fractionCompleted ?? 0)
/// }
/// let response = try await transfer.value
/// ```
public struct Transfer<Value: Sendable>: Sendable {
    /// The progress, from zero bytes to the last, then the end of the sequence.
    public let progress: AsyncStream<TransferProgress>
    private let task: Task<Result<Value, RequestError>, Never>

    /// Starts `operation` in a new task, giving it the handler that feeds ``progress``.
    ///
    /// ```swift
    /// let transfer = Transfer { report in try await request.download(to: url, progress: report) }
    /// ```
    /// - Parameter operation: The transfer; it reports progress through the handler it is given.
    public init(
        _ operation:
            @escaping @Sendable (_ report: @escaping @Sendable (TransferProgress) -> Void)
            async throws(RequestError) -> Value
    ) {
        let (stream, continuation) = AsyncStream<TransferProgress>.makeStream(bufferingPolicy: .bufferingNewest(64))
        progress = stream
        task = Task {
            defer { continuation.finish() }
            do throws(RequestError) {
                return .success(try await operation { continuation.yield($0) })
            } catch {
                return .failure(error)
            }
        }
    }

    /// The transfer's result, once it finishes.
    ///
    /// - Throws: ``RequestError`` when the transfer fails or is cancelled.
    public var value: Value {
        get async throws(RequestError) {
            try await task.value.get()
        }
    }

    /// Cancels the transfer.
    ///
    /// ```swift
    /// transfer.cancel()
    /// ```
    public func cancel() {
        task.cancel()
    }
}

extension RequestRepresentable {
    /// Starts downloading the response body to a file; see ``download(to:progress:)``.
    ///
    /// ```swift
    /// let transfer = Request { Url("http://127.0.0.1:8080/large/1048576") }.downloadTransfer(to: destination)
    /// for await progress in transfer.progress { print(progress) }
    /// _ = try await transfer.value
    /// ```
    /// - Parameter destination: The file to create or replace.
    /// - Returns: The running transfer, whose value is the response head.
    public func downloadTransfer(to destination: URL) -> Transfer<Response> {
        let request = self.request
        return Transfer { report throws(RequestError) in
            try await request.download(to: destination, progress: report)
        }
    }

    /// Starts sending the request, reporting the upload of its body; the value is the validated response.
    ///
    /// ```swift
    /// let transfer = Request {
    ///     Url("http://127.0.0.1:8080/upload")
    ///     Method(.post)
    ///     Body(file: videoURL)
    /// }.uploadTransfer()
    /// for await progress in transfer.progress { print(progress) }
    /// let response = try await transfer.value
    /// ```
    /// - Returns: The running transfer.
    public func uploadTransfer() -> Transfer<Response> {
        let request = self.request
        return Transfer { report throws(RequestError) in
            try await request.adding { UploadProgress(report) }.validatedResponse()
        }
    }
}

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession behind ``URLSessionTransport/stream(_:)``: a session of its own (same configuration as the
/// transport's), whose delegate forwards each task's body to its ``ResponseBodyStream`` instead of collecting it.
///
/// Backpressure: when a stream's buffer is full the task is suspended, and resumed when the consumer drains it.
final class StreamingSession: Sendable {
    let session: URLSession
    private let registry: StreamingRegistry
    private let downloads: DownloadRegistry

    init(configuration: URLSessionConfiguration) {
        let registry = StreamingRegistry()
        let downloads = DownloadRegistry()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "RequestKit.URLSessionTransport.streaming"
        self.registry = registry
        self.downloads = downloads
        self.session = URLSession(
            configuration: configuration, delegate: StreamingDelegate(registry: registry, downloads: downloads),
            delegateQueue: queue)
    }

    func invalidate() {
        session.finishTasksAndInvalidate()
    }

    /// The request to hand URLSession: the body as a stream read from disk, or as in-memory bytes.
    private static func prepare(_ request: TransferRequest, bodyFailure: BodyReadFailure) throws -> URLRequest {
        var urlRequest = request.headWithContentLength()
        if let body = request.body, !body.isInMemory, let reader = try request.makeBodyReader() {
            urlRequest.httpBody = nil
            #if canImport(FoundationNetworking)
            // FoundationNetworking always sends a body stream chunked, and adding Content-Length as well would
            // make the request invalid (RFC 9112 §6.1), so the length is left out.
            urlRequest.setValue(nil, forHTTPHeaderField: "Content-Length")
            urlRequest.httpBodyStream = BodyInputStream(reader: reader, failureRecord: bodyFailure)
            #else
            urlRequest.httpBodyStream = BoundBodyStream.make(reader: reader)
            #endif
        } else if let body = request.body {
            urlRequest.httpBody = body.data
            if let progress = request.uploadProgress {
                let count = Int64(body.data.count)
                progress(TransferProgress(completedBytes: count, totalBytes: count))
            }
        }
        return urlRequest
    }

    /// Downloads the response body into `file` with a download task, which writes to disk as bytes arrive (on
    /// Linux, on libcurl's own thread, so memory stays bounded without any pausing), and returns the head.
    func download(
        _ request: TransferRequest, into file: URL, progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> Response {
        try Task.checkCancellation()
        let bodyFailure = BodyReadFailure()
        let urlRequest = try Self.prepare(request, bodyFailure: bodyFailure)
        let task = session.downloadTask(with: urlRequest)
        let downloads = self.downloads
        let limits = TransferOptions.current.limits
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
                downloads.register(
                    task, file: file, idleTimeout: urlRequest.timeoutInterval, limits: limits, progress: progress,
                    bodyFailure: bodyFailure, continuation: continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    func stream(_ request: TransferRequest) async throws -> StreamingResponse {
        try Task.checkCancellation()
        let bodyFailure = BodyReadFailure()
        let urlRequest = try Self.prepare(request, bodyFailure: bodyFailure)
        let task = session.dataTask(with: urlRequest)
        let (stream, continuation) = ResponseBodyStream.makeStream(bufferLimit: request.bufferLimit)
        let registry = self.registry
        continuation.onDemand = { registry.resumeReading(task) }
        continuation.onTermination = { task.cancel() }
        let idleTimeout = urlRequest.timeoutInterval
        let limits = TransferOptions.current.limits
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (headContinuation: CheckedContinuation<StreamingResponse, any Error>) in
                registry.register(
                    task, idleTimeout: idleTimeout, limits: limits, head: headContinuation, stream: stream,
                    body: continuation,
                    bodyFailure: bodyFailure)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// Routes the streaming session's callbacks to the registries: data tasks stream, download tasks write files.
private final class StreamingDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate,
    @unchecked Sendable
{
    // Safe: the only stored properties are `let`s to lock-guarded registries.
    let registry: StreamingRegistry
    let downloads: DownloadRegistry

    init(registry: StreamingRegistry, downloads: DownloadRegistry) {
        self.registry = registry
        self.downloads = downloads
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        downloads.wrote(totalBytesWritten, expected: totalBytesExpectedToWrite, for: downloadTask)
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL
    ) {
        downloads.finished(downloadTask, at: location)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        registry.received(response, for: dataTask)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        registry.received(data, for: dataTask)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if task is URLSessionDownloadTask {
            downloads.completed(task, error: error)
        } else {
            registry.completed(task, error: error)
        }
    }

    /// As in the buffered session: a challenge is answered by returning the 401 itself (see
    /// ``URLSessionTransport``); FoundationNetworking would otherwise wait forever.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        registry.challenged(task, failureResponse: challenge.failureResponse)
        downloads.challenged(task, failureResponse: challenge.failureResponse)
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        completionHandler(.performDefaultHandling, nil)
        #endif
    }
}

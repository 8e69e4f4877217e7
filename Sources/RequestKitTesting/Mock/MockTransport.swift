import Foundation
import RequestKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport for tests: it answers from canned responses or a closure and records every request it gets.
///
/// ```swift
/// let mock = MockTransport { request in
///     Response(status: .ok, headers: ["Content-Type": "application/json"], body: Data("[]".utf8))
/// }
/// let todos = try await AnyRequest<[Todo]> {
///     Url("http://api.test/todos")
///     Using(mock)
/// }.value()
/// #expect(mock.requests.first?.url?.path == "/todos")
/// ```
public final class MockTransport: Transport, @unchecked Sendable {
    // Safe: every access to the mutable state holds `lock`.
    private let lock = NSLock()
    private var queued: [Result<Response, RequestError>] = []
    private var recorded: [URLRequest] = []
    private let handler: (@Sendable (URLRequest) async throws -> Response)?

    /// Creates a transport that answers each request with `handler`.
    ///
    /// ```swift
    /// let mock = MockTransport { _ in Response(status: .noContent) }
    /// ```
    public init(_ handler: @escaping @Sendable (URLRequest) async throws -> Response) {
        self.handler = handler
    }

    /// Creates a transport that answers with the queued results, in order; see `enqueue(_:)`.
    ///
    /// ```swift
    /// let mock = MockTransport()
    /// mock.enqueue(Response(status: .ok))
    /// ```
    public init() {
        self.handler = nil
    }

    /// Queues a response for the next request.
    ///
    /// ```swift
    /// mock.enqueue(Response(status: 503))
    /// ```
    public func enqueue(_ response: Response) {
        lock.withLock { queued.append(.success(response)) }
    }

    /// Queues an error for the next request.
    ///
    /// ```swift
    /// mock.enqueue(RequestError.timedOut("simulated"))
    /// ```
    public func enqueue(_ error: RequestError) {
        lock.withLock { queued.append(.failure(error)) }
    }

    /// Every request received, in order.
    public var requests: [URLRequest] {
        lock.withLock { recorded }
    }

    /// Records the request (a body read from files is read into memory first, so ``requests`` shows it as
    /// `httpBody`) and answers it from the handler or the queue.
    ///
    /// ```swift
    /// let response = try await mock.send(TransferRequest(URLRequest(url: url)))
    /// ```
    public func send(_ request: TransferRequest) async throws -> Response {
        var urlRequest = request.urlRequest
        if let reader = try request.makeBodyReader() {
            var body = Data()
            while let block = try reader.read(upTo: 1 << 20) { body.append(block) }
            urlRequest.httpBody = body
        }
        lock.withLock { recorded.append(urlRequest) }
        if let handler {
            var response = try await handler(urlRequest)
            if response.url == nil { response.url = urlRequest.url }
            return response
        }
        let next: Result<Response, RequestError>? = lock.withLock {
            queued.isEmpty ? nil : queued.removeFirst()
        }
        guard let next else {
            throw RequestError.transport(
                MockTransportExhausted(), detail: "MockTransport has no queued response for this request")
        }
        var response = try next.get()
        if response.url == nil { response.url = urlRequest.url }
        return response
    }

    /// Answers a streamed request as `send(_:)` does, the response body arriving as one chunk.
    ///
    /// ```swift
    /// let streaming = try await mock.stream(TransferRequest(URLRequest(url: url)))
    /// ```
    public func stream(_ request: TransferRequest) async throws -> StreamingResponse {
        let response = try await send(request)
        return StreamingResponse(head: response, body: ResponseBodyStream(response.body))
    }
}

/// A `MockTransport` received more requests than it had queued responses.
struct MockTransportExhausted: Error, CustomStringConvertible {
    var description: String { "no queued response left" }
}

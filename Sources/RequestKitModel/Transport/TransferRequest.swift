import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What ``Transport/stream(_:)`` sends: the request head, a body that may live on disk, how to report upload
/// progress and bound the response buffer, how large the response may be, and the addresses that replace a lookup.
///
/// ```swift
/// var request = TransferRequest(urlRequest, body: try RequestBody(file: archiveURL))
/// request.uploadProgress = { progress in print(progress.completedBytes) }
/// let streaming = try await URLSessionTransport.shared.stream(request)
/// ```
public struct TransferRequest: Sendable {
    /// The request head; its `httpBody` is nil when ``body`` is not in memory. For a request the pipeline built, a
    /// `URLRequest` is made each time this is read (a transport that writes requests itself need not read it).
    public var urlRequest: URLRequest {
        get { head.urlRequest }
        set { head = .given(newValue) }
    }
    /// The request's URL, read without making a `URLRequest`: a transport that needs only the URL reads this.
    ///
    /// ```swift
    /// func send(_ request: TransferRequest) async throws -> Response {
    ///     var response = cannedResponse
    ///     response.url = request.url
    ///     return response
    /// }
    /// ```
    public var url: URL? { head.url }
    /// The request as the pipeline built it (``BuiltRequest``), for a transport that can send it without a
    /// `URLRequest`; nil when not built by the pipeline, or once ``urlRequest`` or ``body`` is set.
    package var built: BuiltRequest? {
        if case .built(let built) = head { return built }
        return nil
    }
    private var head: Head
    /// The body to send, if any.
    public var body: RequestBody? {
        didSet {
            // The built request holds the body it was built with: from now on, the head is a `URLRequest`.
            if case .built(let built) = head { head = .given(built.makeURLRequest()) }
        }
    }
    /// Called from the transport's thread each time a block of the body has been read for sending.
    public var uploadProgress: (@Sendable (TransferProgress) -> Void)?
    /// How many bytes of response body may wait, unread, before the transport stops reading from the network.
    public var bufferLimit: Int
    /// How large the response may be: the request's ``ResponseLimits`` (from ``MaxResponseSize``, a client's
    /// ``Client/Configuration/responseLimits``, or the defaults).
    ///
    /// A transport that can, stops reading and closes the connection as soon as a limit is passed, failing with a
    /// ``RequestError`` of kind ``RequestError/Kind/responseTooLarge``: ``ResponseLimits/maxBodyBytes`` in
    /// ``Transport/send(_:)``, ``ResponseLimits/maxStreamedBodyBytes`` in ``Transport/stream(_:)``, and
    /// ``ResponseLimits/maxDecompressionRatio`` where it undoes a `Content-Encoding`. The pipeline checks
    /// ``ResponseLimits/maxBodyBytes`` again on whatever `send` returns, so a transport that ignores it is still
    /// bounded, though only after it has read the body.
    ///
    /// ```swift
    /// var request = TransferRequest(URLRequest(url: url))
    /// request.responseLimits.maxBodyBytes = 1 << 20
    /// let response = try await NativeTransport.shared.send(request)
    /// ```
    public var responseLimits: ResponseLimits
    /// Fixed addresses for hosts and ports of this request (``Resolve``), over the transport's own: curl's
    /// `--resolve`. ``NativeTransport`` connects to them instead of looking the host up, and pools those connections
    /// apart; ``URLSessionTransport`` refuses a request whose host and port are overridden.
    ///
    /// ```swift
    /// var request = TransferRequest(URLRequest(url: url))
    /// request.dnsOverrides = try DNSOverrides(["api.example.com:443:192.0.2.7"])
    /// let response = try await NativeTransport.shared.send(request)
    /// ```
    public var dnsOverrides = DNSOverrides()

    /// The buffer limit used when none is given: 1 MiB.
    public static let defaultBufferLimit = 1 << 20

    /// Creates a transfer request.
    ///
    /// ```swift
    /// let request = TransferRequest(URLRequest(url: url), body: RequestBody(Data("hi".utf8), contentType: .text))
    /// ```
    /// - Parameters:
    ///   - urlRequest: The request head.
    ///   - body: The body; nil for none.
    ///   - uploadProgress: The upload progress handler.
    ///   - bufferLimit: The response buffer bound in bytes; 1 MiB by default.
    ///   - responseLimits: How large the response may be; the defaults of ``ResponseLimits`` unless given.
    public init(
        _ urlRequest: URLRequest, body: RequestBody? = nil,
        uploadProgress: (@Sendable (TransferProgress) -> Void)? = nil, bufferLimit: Int = Self.defaultBufferLimit,
        responseLimits: ResponseLimits = ResponseLimits()
    ) {
        self.head = .given(urlRequest)
        self.body = body
        self.uploadProgress = uploadProgress
        self.bufferLimit = max(1, bufferLimit)
        self.responseLimits = responseLimits
    }

    /// A transfer of `head`: a request the pipeline built, with `body` (the body it was built with), or a
    /// `URLRequest`.
    package init(
        _ head: Head, body: RequestBody?, uploadProgress: (@Sendable (TransferProgress) -> Void)?,
        bufferLimit: Int = Self.defaultBufferLimit, responseLimits: ResponseLimits,
        dnsOverrides: DNSOverrides = DNSOverrides()
    ) {
        self.head = head
        self.body = body
        self.uploadProgress = uploadProgress
        self.bufferLimit = max(1, bufferLimit)
        self.responseLimits = responseLimits
        self.dnsOverrides = dnsOverrides
    }

    /// A request's head: as the pipeline built it (``BuiltRequest``), made into a `URLRequest` only when one is asked
    /// for, or a `URLRequest` given as it is.
    package enum Head: Sendable {
        case built(BuiltRequest)
        case given(URLRequest)

        /// The `URLRequest`: the given one, or one made from the built request.
        package var urlRequest: URLRequest {
            switch self {
            case .built(let built): built.makeURLRequest()
            case .given(let request): request
            }
        }

        /// The URL, read without making a `URLRequest`.
        package var url: URL? {
            switch self {
            case .built(let built): built.url
            case .given(let request): request.url
            }
        }
    }

    /// A reader over ``body`` that reports to ``uploadProgress`` as it goes; nil when there is no body.
    ///
    /// ```swift
    /// if let reader = try request.makeBodyReader() {
    ///     while let block = try reader.read(upTo: 64 * 1024) { try socket.send(block) }
    /// }
    /// ```
    /// - Returns: A fresh reader positioned at the start of the body.
    /// - Throws: ``RequestError`` when a file of the body cannot be opened.
    public func makeBodyReader() throws(RequestError) -> RequestBodyReader? {
        guard let body else { return nil }
        let reader = try body.makeReader()
        reader.progressHandler = uploadProgress
        return reader
    }

    /// The head with `Content-Length` set from a streamed body's known length (unless already set).
    ///
    /// ```swift
    /// let head = request.headWithContentLength()
    /// ```
    public func headWithContentLength() -> URLRequest {
        var head = urlRequest
        if let body, !body.isInMemory, head.value(forHTTPHeaderField: "Content-Length") == nil,
            let length = body.length
        {
            head.setValue(String(length), forHTTPHeaderField: "Content-Length")
        }
        return head
    }
}

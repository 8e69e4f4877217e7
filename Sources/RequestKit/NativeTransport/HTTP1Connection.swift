import Foundation

/// One kept-alive HTTP/1.1 connection: a blocking socket, the thread that does its blocking I/O, and a read buffer
/// reused by every request it carries.
///
/// The pool hands a connection to one request at a time. That request's job runs on ``worker`` and is the only
/// code that touches the socket's bytes and the buffer; other threads only call ``cancel()``, which shuts the
/// socket down to wake the blocked thread.
final class HTTP1Connection: @unchecked Sendable {
    // Safe: `socket`, `isCancelled` and `isClosed` are read and written only while holding `lock`; `buffer`,
    // `bufferStart`, `bufferEnd`, `currentIdleTimeout`, `hasReceivedResponseBytes`, `promptnessSkips`, `requestCount` and
    // `lastUsed` belong to the one request that leased the connection from the pool (whose lock orders the
    // hand-over between threads).
    private let lock = NSLock()
    private var socket: HTTP1Socket?
    private var isCancelled = false
    private var isClosed = false

    /// The host and port this connection goes to.
    let key: HTTP1ConnectionKey
    /// The thread of its own that runs this connection's blocking I/O, so a blocked read never holds a thread that
    /// Swift's cooperative pool or Dispatch needs.
    let worker = HTTP1ConnectionThread()
    /// When the connection last went back to the pool.
    var lastUsed = DispatchTime.now()
    /// How many responses this connection has carried.
    private(set) var requestCount = 0

    private let buffer: UnsafeMutableRawBufferPointer
    private var bufferStart = 0
    private var bufferEnd = 0
    private var currentIdleTimeout = -1.0
    private var hasReceivedResponseBytes = false
    private var promptnessSkips = 0

    init(key: HTTP1ConnectionKey, bufferSize: Int) {
        self.key = key
        self.buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bufferSize, 4096), alignment: 16)
    }

    deinit {
        worker.stop()
        closeSocket()
        buffer.deallocate()
    }

    /// Whether a socket has been opened (a reused connection rather than a fresh one).
    var isConnected: Bool { lock.withLock { socket != nil } }

    /// Clears the cancellation mark before a new request starts on this connection.
    func beginRequest() {
        lock.withLock { isCancelled = false }
    }

    /// Whether the request in flight was cancelled.
    var wasCancelled: Bool { lock.withLock { isCancelled } }

    /// Marks the request in flight cancelled and wakes its thread by shutting the socket down.
    func cancel() {
        lock.withLock {
            isCancelled = true
            socket?.shutdown()
        }
    }

    /// Closes the socket; the connection cannot be used again.
    func closeSocket() {
        let closing: HTTP1Socket? = lock.withLock {
            isClosed = true
            defer { socket = nil }
            return socket
        }
        closing?.close()
    }

    /// Whether an idle connection can take a request: still open, with nothing (not even an EOF) waiting.
    var isUsableWhileIdle: Bool {
        guard let socket = lock.withLock({ socket }) else { return false }
        return bufferStart == bufferEnd && !socket.isReadableWhileIdle
    }

    /// Opens the socket unless it is open already.
    func connectIfNeeded(connectTimeout: Double) throws {
        if isConnected { return }
        let opened = try HTTP1Socket.connect(
            host: key.host, port: key.port, timeout: connectTimeout, isCancelled: { wasCancelled })
        let isAlreadyClosed: Bool = lock.withLock {
            if isClosed || isCancelled { return true }
            socket = opened
            return false
        }
        if isAlreadyClosed {
            opened.close()
            throw CancellationError()
        }
    }

    /// The outcome of an exchange: the final response head, its raw body, and whether the connection may carry
    /// another request.
    typealias Exchanged = (head: HTTP1ResponseHead, body: Data, isReusable: Bool)

    /// Sends a request (or what is left of it after `alreadySent` bytes, when the awaiting task started it) and
    /// reads the whole response (from `progress` on), blocking the calling thread.
    ///
    /// - Throws: ``HTTP1ExchangeFailure`` when the connection ended before any response byte; `HTTP1Socket.Failure`
    ///   or ``HTTP1ParseError`` otherwise.
    func exchange(
        head: [UInt8], body: Data, alreadySent: Int?, progress: HTTP1ResponseProgress, isHeadRequest: Bool,
        idleTimeout: Double, limits: HTTP1Limits
    ) throws -> Exchanged {
        if let alreadySent {
            try send(head: head, body: body, from: alreadySent)
        } else {
            try send(head: head, body: body, idleTimeout: idleTimeout)
        }
        var progress = progress
        _ = try read(&progress, isHeadRequest: isHeadRequest, limits: limits, waits: true)
        return try exchanged(progress)
    }

    /// The outcome of a completely read response.
    func exchanged(_ progress: HTTP1ResponseProgress) throws -> Exchanged {
        guard let head = progress.head, let decoder = progress.decoder else { throw HTTP1ParseError.truncatedHead }
        return (head, progress.body, isReusable(after: head, decoder))
    }

    /// Whether the response starts arriving within a few tens of microseconds, as it does from a server on the
    /// same machine or network. After a miss the connection does not check again for its next 32 requests, so a
    /// distant server costs no CPU time.
    func respondsPromptly() -> Bool {
        if promptnessSkips > 0 {
            promptnessSkips -= 1
            return false
        }
        guard let socket = lock.withLock({ socket }) else { return false }
        if socket.becomesReadable(within: 50) { return true }
        promptnessSkips = 32
        return false
    }

    /// Reads the response as far as bytes have arrived (`waits` false) or to its end (`waits` true).
    ///
    /// - Returns: Whether the response is complete.
    func read(
        _ progress: inout HTTP1ResponseProgress, isHeadRequest: Bool, limits: HTTP1Limits, waits: Bool
    ) throws -> Bool {
        let socket = try openSocket()
        while progress.head == nil {
            if bufferEnd > bufferStart,
                let (head, length) = try HTTP1ResponseHead.parse(
                    UnsafeRawBufferPointer(rebasing: buffer[bufferStart..<bufferEnd]), limits: limits.head)
            {
                bufferStart += length
                if head.isInformational {
                    progress.informationalCount += 1
                    if progress.informationalCount > 10 { throw HTTP1ParseError.tooManyInformationalResponses }
                    continue
                }
                let framing = try head.framing(isHeadRequest: isHeadRequest)
                if case .length(let count) = framing {
                    // A body announced over the limit fails before any of it is read.
                    if count > limits.body.maxBodyBytes {
                        throw HTTP1ResponseTooLarge(head: head, isRatio: false, limit: limits.body.maxBodyBytes)
                    }
                    progress.body.reserveCapacity(min(count, 1 << 24))
                }
                progress.head = head
                progress.decoder = HTTP1BodyDecoder(framing: framing, limits: limits.body)
                break
            }
            compactBuffer()
            let free = UnsafeMutableRawBufferPointer(rebasing: buffer[bufferEnd...])
            guard !free.isEmpty else { throw HTTP1ParseError.headTooLarge }
            guard let count = try receive(socket, into: free, isFirstRead: !hasReceivedResponseBytes, waits: waits)
            else { return false }
            if count == 0 {
                if !hasReceivedResponseBytes { throw HTTP1ExchangeFailure.closedBeforeResponse(nil) }
                throw HTTP1ParseError.truncatedHead
            }
            hasReceivedResponseBytes = true
            bufferEnd += count
        }
        guard var decoder = progress.decoder, let head = progress.head else { throw HTTP1ParseError.truncatedHead }
        defer { progress.decoder = decoder }
        while !decoder.isComplete {
            if bufferEnd > bufferStart {
                let available = UnsafeRawBufferPointer(rebasing: buffer[bufferStart..<bufferEnd])
                do {
                    bufferStart += try decoder.decode(available, into: &progress.body)
                } catch {
                    guard error == .bodyTooLarge else { throw error }
                    throw HTTP1ResponseTooLarge(head: head, isRatio: false, limit: limits.body.maxBodyBytes)
                }
                if decoder.isComplete { break }
            }
            compactBuffer()
            let free = UnsafeMutableRawBufferPointer(rebasing: buffer[bufferEnd...])
            guard !free.isEmpty else { throw HTTP1ParseError.invalidChunkSize }
            guard let count = try receive(socket, into: free, isFirstRead: false, waits: waits) else { return false }
            if count == 0 {
                try decoder.finishAtEndOfStream()
            } else {
                bufferEnd += count
            }
        }
        return true
    }

    /// Sends a request head and an in-memory body (possibly empty), setting the idle timeout first.
    ///
    /// - Parameters:
    ///   - head: The request head.
    ///   - body: The in-memory body.
    ///   - idleTimeout: The request's idle timeout.
    ///   - waitsForSpace: When `false`, sends only what the kernel takes at once (so that the awaiting task can
    ///     start a small request itself, without waiting for the connection's thread); ``send(head:body:from:)``
    ///     sends the rest.
    /// - Returns: How many bytes were sent.
    /// - Throws: ``HTTP1ExchangeFailure`` when the connection is closed; `HTTP1Socket.Failure.timedOut`.
    @discardableResult
    func send(head: [UInt8], body: Data, idleTimeout: Double, waitsForSpace: Bool = true) throws -> Int {
        let socket = try openSocket()
        if idleTimeout != currentIdleTimeout {
            socket.setIdleTimeout(idleTimeout)
            currentIdleTimeout = idleTimeout
        }
        requestCount += 1
        bufferStart = 0
        bufferEnd = 0
        hasReceivedResponseBytes = false
        return try send(head: head, body: body, from: 0, waitsForSpace: waitsForSpace)
    }

    /// Sends what is left of a request after its first `offset` bytes.
    ///
    /// - Throws: ``HTTP1ExchangeFailure`` when the connection is closed; `HTTP1Socket.Failure.timedOut`.
    @discardableResult
    func send(head: [UInt8], body: Data, from offset: Int, waitsForSpace: Bool = true) throws -> Int {
        let socket = try openSocket()
        let sent = head.withUnsafeBytes { headBytes in
            body.withUnsafeBytes { bodyBytes in
                Result { () throws(HTTP1Socket.Failure) in
                    try socket.send(headBytes, bodyBytes, from: offset, waitsForSpace: waitsForSpace)
                }
            }
        }
        switch sent {
        case .success(let count): return count
        case .failure(.system(let error)): throw HTTP1ExchangeFailure.closedBeforeResponse(error)
        case .failure(let failure): throw failure
        }
    }

    /// Sends a body read from `reader`: exactly `length` bytes, or with chunked coding when `length` is `nil`.
    ///
    /// - Throws: ``RequestError`` when the body cannot be read or its files no longer hold `length` bytes;
    ///   ``HTTP1ExchangeFailure`` or `HTTP1Socket.Failure` when it cannot be sent.
    func send(bodyFrom reader: RequestBodyReader, length: Int?) throws {
        let socket = try openSocket()
        var sentBytes = 0
        while let block = try reader.read(upTo: 64 * 1024) {
            sentBytes += block.count
            if let length, sentBytes > length { throw Self.bodyLengthChanged(length) }
            let prefix = length == nil ? Array((String(block.count, radix: 16) + "\r\n").utf8) : []
            var framed = block
            if length == nil { framed.append(contentsOf: [0x0D, 0x0A]) }
            try sendWhole(socket, prefix, framed)
        }
        if let length, sentBytes != length { throw Self.bodyLengthChanged(length) }
        if length == nil { try sendWhole(socket, Array("0\r\n\r\n".utf8), Data()) }
    }

    private static func bodyLengthChanged(_ length: Int) -> RequestError {
        RequestError.transport(
            POSIXError(.EIO), detail: "the request body no longer has the \(length) bytes announced in Content-Length")
    }

    private func sendWhole(_ socket: HTTP1Socket, _ head: [UInt8], _ body: Data) throws {
        let sent = head.withUnsafeBytes { headBytes in
            body.withUnsafeBytes { bodyBytes in
                Result { () throws(HTTP1Socket.Failure) in try socket.send(headBytes, bodyBytes) }
            }
        }
        if case .failure(let failure) = sent { throw failure }
    }

    /// Reads the next final (non-1xx) response head.
    func receiveHead(limits: HTTP1Limits) throws -> HTTP1ResponseHead {
        let socket = try openSocket()
        var informationalCount = 0
        while true {
            let responseHead = try readHead(socket, limits: limits)
            guard responseHead.isInformational else { return responseHead }
            informationalCount += 1
            if informationalCount > 10 { throw HTTP1ParseError.tooManyInformationalResponses }
        }
    }

    /// The next decoded piece of the body (up to the buffer's size), or `nil` once the body is complete.
    func receiveBodyPiece(_ decoder: inout HTTP1BodyDecoder) throws -> Data? {
        let socket = try openSocket()
        while !decoder.isComplete {
            var piece = Data()
            if bufferEnd > bufferStart {
                let available = UnsafeRawBufferPointer(rebasing: buffer[bufferStart..<bufferEnd])
                bufferStart += try decoder.decode(available, into: &piece)
                if !piece.isEmpty || decoder.isComplete { return piece }
            }
            try fill(socket, decoder: &decoder)
        }
        return nil
    }

    /// Whether the connection may carry another request after this response and body.
    func isReusable(after head: HTTP1ResponseHead, _ decoder: HTTP1BodyDecoder) -> Bool {
        head.isKeepAlive && decoder.isComplete && !decoder.isDelimitedByClose && !head.hasAmbiguousFraming
            && head.status != 101 && bufferStart == bufferEnd
    }

    private func openSocket() throws -> HTTP1Socket {
        guard let socket = lock.withLock({ socket }) else { throw HTTP1ExchangeFailure.closedBeforeResponse(nil) }
        return socket
    }

    private func readHead(_ socket: HTTP1Socket, limits: HTTP1Limits) throws -> HTTP1ResponseHead {
        while true {
            if bufferEnd > bufferStart {
                let available = UnsafeRawBufferPointer(rebasing: buffer[bufferStart..<bufferEnd])
                if let (head, length) = try HTTP1ResponseHead.parse(available, limits: limits.head) {
                    bufferStart += length
                    return head
                }
            }
            compactBuffer()
            let free = UnsafeMutableRawBufferPointer(rebasing: buffer[bufferEnd...])
            guard !free.isEmpty else { throw HTTP1ParseError.headTooLarge }
            let count = try receive(socket, into: free, isFirstRead: !hasReceivedResponseBytes) ?? 0
            if count == 0 {
                if !hasReceivedResponseBytes { throw HTTP1ExchangeFailure.closedBeforeResponse(nil) }
                throw HTTP1ParseError.truncatedHead
            }
            hasReceivedResponseBytes = true
            bufferEnd += count
        }
    }

    /// Receives bytes (`nil` when `waits` is false and none have arrived); a failure before the first byte of a
    /// response means the connection closed before it.
    private func receive(
        _ socket: HTTP1Socket, into free: UnsafeMutableRawBufferPointer, isFirstRead: Bool, waits: Bool = true
    ) throws -> Int? {
        let result = Result { () throws(HTTP1Socket.Failure) -> Int? in
            waits ? try socket.receive(into: free) : try socket.receiveAvailable(into: free)
        }
        switch result {
        case .success(let count): return count
        case .failure(.system(let error)) where isFirstRead: throw HTTP1ExchangeFailure.closedBeforeResponse(error)
        case .failure(let failure): throw failure
        }
    }

    /// Reads more body bytes into the buffer; at the end of the stream, tells the decoder.
    private func fill(_ socket: HTTP1Socket, decoder: inout HTTP1BodyDecoder) throws {
        compactBuffer()
        let free = UnsafeMutableRawBufferPointer(rebasing: buffer[bufferEnd...])
        guard !free.isEmpty else { throw HTTP1ParseError.invalidChunkSize }
        let count = try socket.receive(into: free)
        if count == 0 {
            try decoder.finishAtEndOfStream()
        } else {
            bufferEnd += count
        }
    }

    /// Moves unread bytes to the start of the buffer so that the free space after them is as large as possible.
    private func compactBuffer() {
        if bufferStart == bufferEnd {
            bufferStart = 0
            bufferEnd = 0
        } else if bufferStart > 0 {
            let count = bufferEnd - bufferStart
            guard let base = buffer.baseAddress else { return }
            memmove(base, base + bufferStart, count)
            bufferStart = 0
            bufferEnd = count
        }
    }
}

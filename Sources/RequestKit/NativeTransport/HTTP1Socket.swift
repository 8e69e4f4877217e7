import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system calls ``HTTP1Connection`` makes on one blocking TCP socket, each failure turned into a
/// `POSIXError` or a timeout the caller can tell apart.
///
/// The socket is blocking, with `SO_RCVTIMEO`/`SO_SNDTIMEO` set to the request's idle timeout, so that a quiet
/// server wakes the thread with `EAGAIN` instead of an extra `poll` per read. Cancellation shuts the socket down
/// from another thread, which wakes a blocked `recv` at once.
struct HTTP1Socket: Sendable {
    /// What a blocking call ended with, when it did not transfer bytes.
    enum Failure: Error, Sendable {
        /// No byte moved for the whole idle timeout.
        case timedOut
        /// The system call failed.
        case system(POSIXError)
        /// The host name did not resolve; the resolver's message says why.
        case hostNotFound(String)
    }

    /// The descriptor, or -1 once closed.
    let descriptor: Int32

    #if canImport(Darwin)
    private static let streamType = SOCK_STREAM
    private static let noSignalFlag: Int32 = 0
    #else
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let noSignalFlag = Int32(MSG_NOSIGNAL)
    #endif

    /// Opens a TCP connection to `host`:`port`, trying each resolved address in turn.
    ///
    /// - Parameters:
    ///   - host: A host name or an IPv4/IPv6 literal.
    ///   - port: The TCP port.
    ///   - timeout: How long each address may take to accept, in seconds.
    ///   - isCancelled: Polled every 50 ms while waiting, so that a cancelled request stops connecting.
    /// - Throws: `Failure` (``Failure/hostNotFound(_:)`` when the name does not resolve); `CancellationError`
    ///   when `isCancelled` turned true.
    static func connect(
        host: String, port: Int, timeout: Double, isCancelled: () -> Bool
    ) throws -> HTTP1Socket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamType
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure.hostNotFound(status == 0 ? "no address" : String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var lastFailure = Failure.system(POSIXError(.ECONNREFUSED))
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let descriptor = socket(address.pointee.ai_family, streamType, 0)
            guard descriptor >= 0 else {
                lastFailure = .system(currentError())
                continue
            }
            do {
                try connect(descriptor, address.pointee, timeout: timeout, isCancelled: isCancelled)
                let socket = HTTP1Socket(descriptor: descriptor)
                socket.configure()
                return socket
            } catch let failure as Failure {
                _ = systemClose(descriptor)
                lastFailure = failure
            } catch {
                _ = systemClose(descriptor)
                throw error
            }
        }
        throw lastFailure
    }

    private static func connect(
        _ descriptor: Int32, _ address: addrinfo, timeout: Double, isCancelled: () -> Bool
    ) throws {
        let flags = fcntl(descriptor, F_GETFL, 0)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        if systemConnect(descriptor, address.ai_addr, address.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else { throw Failure.system(currentError()) }
            let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, min(timeout, 1e6)) * 1e9)
            while true {
                if isCancelled() { throw CancellationError() }
                var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&entry, 1, 50)
                if ready > 0 { break }
                if ready < 0, errno != EINTR { throw Failure.system(currentError()) }
                if DispatchTime.now().uptimeNanoseconds >= deadline { throw Failure.timedOut }
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
            guard error == 0 else { throw Failure.system(POSIXError(POSIXErrorCode(rawValue: error) ?? .EIO)) }
        }
        _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK)
    }

    private func configure() {
        var one: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, size)
        #if canImport(Darwin)
        setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, size)
        #endif
    }

    /// Sets the send and receive timeouts; zero or a non-finite value waits forever.
    func setIdleTimeout(_ seconds: Double) {
        var time = timeval()
        if seconds > 0, seconds.isFinite {
            let clamped = min(seconds, 1e8)
            time.tv_sec = .init(clamped)
            time.tv_usec = .init((clamped - clamped.rounded(.down)) * 1e6)
            if time.tv_sec == 0, time.tv_usec == 0 { time.tv_usec = 1 }
        }
        let size = socklen_t(MemoryLayout<timeval>.size)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, size)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, size)
    }

    /// Sends `head` then `body` from byte `offset` of the two together, in one system call when the kernel takes
    /// them at once.
    ///
    /// - Parameters:
    ///   - head: The first bytes.
    ///   - body: The bytes after them.
    ///   - offset: How many bytes were sent already.
    ///   - waitsForSpace: Whether to block while the socket's send buffer is full; when `false`, the call returns
    ///     as soon as the kernel takes no more.
    /// - Returns: How many bytes of the two have been sent in all.
    @discardableResult
    func send(
        _ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer, from offset: Int = 0, waitsForSpace: Bool = true
    ) throws(Failure) -> Int {
        var sent = offset
        let total = head.count + body.count
        let flags = waitsForSpace ? Self.noSignalFlag : Self.noSignalFlag | Int32(MSG_DONTWAIT)
        while sent < total {
            let headSent = min(sent, head.count)
            let bodySent = sent - headSent
            var vectors = (
                iovec(
                    iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress.map { $0 + headSent }),
                    iov_len: head.count - headSent),
                iovec(
                    iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress.map { $0 + bodySent }),
                    iov_len: body.count - bodySent)
            )
            let count = withUnsafeMutablePointer(to: &vectors) { pointer in
                pointer.withMemoryRebound(to: iovec.self, capacity: 2) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = headSent < head.count ? vectorPointer : vectorPointer + 1
                    message.msg_iovlen = headSent < head.count ? 2 : 1
                    return sendmsg(descriptor, &message, flags)
                }
            }
            if count < 0 {
                if errno == EINTR { continue }
                if !waitsForSpace, errno == EAGAIN || errno == EWOULDBLOCK { return sent }
                throw Self.failure()
            }
            sent += count
        }
        return sent
    }

    /// Receives into `buffer`; returns 0 at the end of the stream.
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw Self.failure()
        }
    }

    /// Receives what has arrived without waiting: `nil` when nothing has, 0 at the end of the stream.
    func receiveAvailable(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> Int? {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if count >= 0 { return count }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw Self.failure()
        }
    }

    /// Whether bytes (or the end of the stream) arrive within `microseconds`, checked without sleeping.
    func becomesReadable(within microseconds: UInt64) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + microseconds * 1000
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        repeat {
            if poll(&entry, 1, 0) != 0 { return true }
        } while DispatchTime.now().uptimeNanoseconds < deadline
        return false
    }

    /// Whether the peer closed the connection or sent something while nobody was asking: either way the
    /// connection cannot carry another request.
    var isReadableWhileIdle: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) != 0
    }

    /// Wakes any thread blocked on the socket; the descriptor stays open until ``close()``.
    func shutdown() {
        _ = Self.systemShutdown(descriptor)
    }

    /// Closes the descriptor.
    func close() {
        _ = Self.systemClose(descriptor)
    }

    private static func failure() -> Failure {
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK { return .timedOut }
        return .system(POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
    }

    private static func currentError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }

    private static func systemClose(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(descriptor)
        #elseif canImport(Musl)
        Musl.close(descriptor)
        #else
        Darwin.close(descriptor)
        #endif
    }

    private static func systemShutdown(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
        #elseif canImport(Musl)
        Musl.shutdown(descriptor, Int32(SHUT_RDWR))
        #else
        Darwin.shutdown(descriptor, Int32(SHUT_RDWR))
        #endif
    }

    private static func systemConnect(
        _ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t
    ) -> Int32 {
        #if canImport(Glibc)
        Glibc.connect(descriptor, address, length)
        #elseif canImport(Musl)
        Musl.connect(descriptor, address, length)
        #else
        Darwin.connect(descriptor, address, length)
        #endif
    }
}

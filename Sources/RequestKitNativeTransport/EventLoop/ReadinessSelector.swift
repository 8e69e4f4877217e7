import Foundation

#if canImport(Glibc)
import CEpoll
import Glibc
#elseif canImport(Musl)
import CEpoll
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The readiness a descriptor is watched for.
package struct LoopInterest: OptionSet, Sendable {
    package let rawValue: UInt8

    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bytes to read, or the peer closed.
    package static let readable = LoopInterest(rawValue: 1)
    /// Room to write, or a connection attempt finished.
    package static let writable = LoopInterest(rawValue: 2)
}

/// The operating system's readiness notification: epoll on Linux, kqueue on Apple platforms, level-triggered, with
/// a wake-up descriptor (an eventfd, or a pipe) that other threads signal when they hand the loop work.
///
/// Only its ``EventLoop``'s thread calls it, except ``wake()``, which any thread may call.
final class ReadinessSelector: ReadinessSource, @unchecked Sendable {
    // Safe: every method but `wake()` runs on the loop's thread; `wake()` only writes to a descriptor that stays
    // open for the life of the selector.
    private let descriptor: Int32
    private let wakeReader: Int32
    private let wakeWriter: Int32
    #if canImport(Glibc)
    private static let (inFlag, outFlag, readHangUpFlag, hangUpFlag, errorFlag) = (
        EPOLLIN.rawValue, EPOLLOUT.rawValue, EPOLLRDHUP.rawValue, EPOLLHUP.rawValue, EPOLLERR.rawValue
    )
    #elseif canImport(Musl)
    private static let (inFlag, outFlag, readHangUpFlag, hangUpFlag, errorFlag) = (
        UInt32(EPOLLIN), UInt32(EPOLLOUT), UInt32(EPOLLRDHUP), UInt32(EPOLLHUP), UInt32(EPOLLERR)
    )
    #endif
    #if canImport(Glibc) || canImport(Musl)
    private var events: [epoll_event]
    #elseif canImport(Darwin)
    private var events: [kevent]
    #endif

    /// Opens the selector and its wake-up descriptor.
    ///
    /// - Throws: `POSIXError` when the system is out of descriptors.
    init() throws(POSIXError) {
        #if canImport(Glibc) || canImport(Musl)
        descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard descriptor >= 0 else { throw Self.currentError() }
        wakeReader = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeReader >= 0 else {
            let error = Self.currentError()
            Self.close(descriptor)
            throw error
        }
        wakeWriter = wakeReader
        events = Array(repeating: epoll_event(), count: 256)
        var event = epoll_event()
        event.events = Self.inFlag
        event.data.fd = wakeReader
        guard epoll_ctl(descriptor, EPOLL_CTL_ADD, wakeReader, &event) == 0 else {
            let error = Self.currentError()
            Self.close(wakeReader)
            Self.close(descriptor)
            throw error
        }
        #elseif canImport(Darwin)
        descriptor = kqueue()
        guard descriptor >= 0 else { throw Self.currentError() }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            let error = Self.currentError()
            Self.close(descriptor)
            throw error
        }
        wakeReader = ends[0]
        wakeWriter = ends[1]
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL, 0) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        events = Array(repeating: kevent(), count: 256)
        var change = kevent(
            ident: UInt(wakeReader), filter: Int16(EVFILT_READ), flags: UInt16(EV_ADD | EV_ENABLE), fflags: 0,
            data: 0, udata: nil)
        guard kevent(descriptor, &change, 1, nil, 0, nil) == 0 else {
            let error = Self.currentError()
            Self.close(wakeReader)
            Self.close(wakeWriter)
            Self.close(descriptor)
            throw error
        }
        #endif
    }

    /// Changes what `fd` is watched for, from `old` to `new`; an empty interest stops watching it.
    ///
    /// - Throws: `POSIXError` when the system refuses the change.
    func change(_ fd: Int32, from old: LoopInterest, to new: LoopInterest) throws(POSIXError) {
        guard old != new else { return }
        #if canImport(Glibc) || canImport(Musl)
        var event = epoll_event()
        event.data.fd = fd
        if new.contains(.readable) { event.events |= Self.inFlag | Self.readHangUpFlag }
        if new.contains(.writable) { event.events |= Self.outFlag }
        let operation = old.isEmpty ? EPOLL_CTL_ADD : new.isEmpty ? EPOLL_CTL_DEL : EPOLL_CTL_MOD
        guard epoll_ctl(descriptor, operation, fd, &event) == 0 else { throw Self.currentError() }
        #elseif canImport(Darwin)
        var changes: [kevent] = []
        let filters: [(LoopInterest, Int32)] = [(.readable, Int32(EVFILT_READ)), (.writable, Int32(EVFILT_WRITE))]
        for (interest, filter) in filters {
            if new.contains(interest), !old.contains(interest) {
                changes.append(
                    kevent(
                        ident: UInt(fd), filter: Int16(filter), flags: UInt16(EV_ADD | EV_ENABLE), fflags: 0, data: 0,
                        udata: nil))
            } else if old.contains(interest), !new.contains(interest) {
                changes.append(
                    kevent(
                        ident: UInt(fd), filter: Int16(filter), flags: UInt16(EV_DELETE), fflags: 0, data: 0, udata: nil
                    ))
            }
        }
        guard kevent(descriptor, &changes, Int32(changes.count), nil, 0, nil) == 0 else { throw Self.currentError() }
        #endif
    }

    /// Waits until a descriptor is ready, the wake-up descriptor is signalled, or `timeout` nanoseconds pass
    /// (forever when nil), then reports each ready descriptor to `ready`.
    func wait(timeout: UInt64?, _ ready: (Int32, _ readable: Bool, _ writable: Bool) -> Void) {
        #if canImport(Glibc) || canImport(Musl)
        let milliseconds = timeout.map { Int32(min(($0 + 999_999) / 1_000_000, 3_600_000)) } ?? -1
        let count = epoll_wait(descriptor, &events, Int32(events.count), milliseconds)
        guard count > 0 else { return }
        let hangUp = Self.hangUpFlag | Self.errorFlag
        for index in 0..<Int(count) {
            let event = events[index]
            let fd = event.data.fd
            if fd == wakeReader {
                drainWakeUps()
                continue
            }
            let flags = event.events
            ready(fd, flags & (Self.inFlag | Self.readHangUpFlag | hangUp) != 0, flags & (Self.outFlag | hangUp) != 0)
        }
        #elseif canImport(Darwin)
        var limit = timespec()
        if let timeout {
            let clamped = min(timeout, 3_600_000_000_000)
            limit.tv_sec = Int(clamped / 1_000_000_000)
            limit.tv_nsec = Int(clamped % 1_000_000_000)
        }
        let count =
            timeout == nil
            ? kevent(descriptor, nil, 0, &events, Int32(events.count), nil)
            : kevent(descriptor, nil, 0, &events, Int32(events.count), &limit)
        guard count > 0 else { return }
        for index in 0..<Int(count) {
            let event = events[index]
            let fd = Int32(truncatingIfNeeded: event.ident)
            if fd == wakeReader {
                drainWakeUps()
                continue
            }
            let failed = event.flags & UInt16(EV_ERROR | EV_EOF) != 0
            ready(
                fd, event.filter == Int16(EVFILT_READ) || failed, event.filter == Int16(EVFILT_WRITE) || failed)
        }
        #endif
    }

    /// Makes a waiting (or the next) ``wait(timeout:_:)`` return at once. Any thread may call it.
    func wake() {
        var one: UInt64 = 1
        #if canImport(Glibc)
        _ = Glibc.write(wakeWriter, &one, 8)
        #elseif canImport(Musl)
        _ = Musl.write(wakeWriter, &one, 8)
        #elseif canImport(Darwin)
        _ = Darwin.write(wakeWriter, &one, 1)
        #endif
    }

    private func drainWakeUps() {
        var sink: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        #if canImport(Glibc)
        _ = Glibc.read(wakeReader, &sink, 8)
        #elseif canImport(Musl)
        _ = Musl.read(wakeReader, &sink, 8)
        #elseif canImport(Darwin)
        while Darwin.read(wakeReader, &sink, 32) > 0 {}
        #endif
    }

    private static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #elseif canImport(Musl)
        _ = Musl.close(descriptor)
        #elseif canImport(Darwin)
        _ = Darwin.close(descriptor)
        #endif
    }

    private static func currentError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}

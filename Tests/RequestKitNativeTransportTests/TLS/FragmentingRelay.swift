#if os(Linux)
// COpenSSL's shim includes <sys/socket.h>: where another file of the same compile job imports COpenSSL, the socket
// constants (SOCK_STREAM, MSG_NOSIGNAL) resolve only in a file that imports it too.
#if canImport(COpenSSL)
import COpenSSL
#endif
import Foundation
import RequestKitTestSupport

@testable import RequestKitNativeTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A loopback TCP relay between a client and a server on 127.0.0.1 that forwards the client's bytes as they come and
/// the server's bytes in pieces of seeded random sizes (1 byte up to 4 KB, small pieces often, a short pause after
/// each so that the client reads them apart), optionally ending the client's connection after a given number of the
/// server's bytes. It follows the TLS record framing of the server's stream to count the pieces that end inside a
/// record header.
///
/// Every relay of the process is served by one thread (``RelayLoop``), which waits, parked, while there is none.
///
/// ```swift
/// let relay = try FragmentingRelay(upstreamPort: server.port, seed: 7, cutoff: 1_000)
/// defer { relay.stop() }
/// // send requests to https://127.0.0.1:\(relay.port)
/// ```
final class FragmentingRelay: @unchecked Sendable {
    /// What the relay saw on the connections it accepted.
    struct Stats: Sendable {
        /// The server's bytes forwarded to the client, over all connections.
        var forwardedBytes = 0
        /// Pieces sent to the client.
        var pieces = 0
        /// Pieces that ended inside a TLS record header (after 1 to 4 of its 5 bytes).
        var piecesEndingInsideRecordHeader = 0
        /// Connections ended by the cutoff.
        var truncatedConnections = 0
        /// Connections accepted.
        var connections = 0
        /// TLS records the server started, over all connections.
        var records = 0
    }

    /// How long a link may see no byte either way before the relay ends it.
    static let idleLimit: Duration = .seconds(20)

    // Safe: `stats`, `connections`, `isStopped`, `pauseStart`, `pauseEnd` and `isPauseReleased` are only touched
    // while holding `lock`; the other stored properties are set once in the initializer.
    private let lock = NSLock()
    private var stats = Stats()
    private var connections: [Int32] = []
    private var isStopped = false
    /// The listening socket; only ``RelayLoop`` closes it, once it sees the relay stopped.
    let listener: Int32
    private let upstreamPort: Int
    private let seed: UInt64
    private let cutoff: Cutoff?
    private let pause: Pause?
    private var pauseStart: ContinuousClock.Instant?
    private var pauseEnd: ContinuousClock.Instant?
    private var isPauseReleased = false
    /// The port the relay listens on.
    let port: Int

    /// What the relay has seen so far.
    var currentStats: Stats { lock.withLock { stats } }

    /// When the relay began its ``Pause``; nil while it has not.
    var pauseStarted: ContinuousClock.Instant? { lock.withLock { pauseStart } }
    /// When the relay went on after its ``Pause``; nil while it has not.
    var pauseEnded: ContinuousClock.Instant? { lock.withLock { pauseEnd } }

    /// Ends the ``Pause`` (now, or at once when it begins later).
    func endPause() { lock.withLock { isPauseReleased = true } }

    /// Whether ``stop()`` has been called.
    var isStoppedNow: Bool { lock.withLock { isStopped } }

    /// Where the relay stops forwarding the server's bytes, in the first connection only, until ``endPause()``.
    struct Pause: Sendable {
        /// After `offset` (1 to 4) bytes of the header of the server's record number `record` (from 1).
        var record: Int
        var offset: Int
        /// The longest the pause lasts when ``endPause()`` is never called.
        var longest: Duration
    }

    /// Where the relay ends each connection to the client.
    enum Cutoff: Sendable, CustomStringConvertible {
        /// After this many of the server's bytes.
        case afterBytes(Int)
        /// After `offset` (1 to 4) bytes of the header of the server's record number `record` (from 1).
        case insideRecordHeader(record: Int, offset: Int)

        var description: String {
            switch self {
            case .afterBytes(let count): "after \(count) bytes"
            case .insideRecordHeader(let record, let offset): "after \(offset) bytes of record header \(record)"
            }
        }
    }

    /// Starts a relay to `upstreamPort` on 127.0.0.1; with a `cutoff`, each connection to the client ends there.
    init(upstreamPort: Int, seed: UInt64, cutoff: Cutoff? = nil, pause: Pause? = nil) throws {
        self.upstreamPort = upstreamPort
        self.seed = seed
        self.cutoff = cutoff
        self.pause = pause
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard descriptor >= 0, bound else {
            if descriptor >= 0 { _ = close(descriptor) }
            throw POSIXError(.EADDRNOTAVAIL)
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        do {
            try RelayLoop.shared.add(self)
        } catch {
            _ = close(descriptor)
            throw error
        }
    }

    /// Closes the listener and every connection still open, and ends a pause.
    func stop() {
        lock.withLock {
            // The loop closes the listener once it sees `isStopped`: shut it down only before that.
            guard !isStopped else { return }
            isStopped = true
            _ = shutdown(listener, Int32(SHUT_RDWR))
            isPauseReleased = true
            for connection in connections { _ = shutdown(connection, Int32(SHUT_RDWR)) }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    /// Accepts a client and connects to the server for it; `nil` when either fails.
    func acceptLink() -> RelayLink? {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return nil }
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: upstreamPort)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                connect(upstream, socketAddress, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard upstream >= 0, connected else {
            if upstream >= 0 { _ = close(upstream) }
            _ = close(client)
            return nil
        }
        var noDelay: Int32 = 1
        _ = setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        let index = lock.withLock {
            stats.connections += 1
            connections.append(contentsOf: [client, upstream])
            if isStopped {
                _ = shutdown(client, Int32(SHUT_RDWR))
                _ = shutdown(upstream, Int32(SHUT_RDWR))
            }
            return UInt64(stats.connections)
        }
        return RelayLink(
            relay: self, client: client, upstream: upstream, index: index,
            generator: SplitMix64(state: seed &* 0x100 &+ index))
    }

    /// Closes both sockets of a link.
    func end(_ link: RelayLink) {
        lock.withLock {
            connections.removeAll { $0 == link.client || $0 == link.upstream }
            _ = close(link.client)
            _ = close(link.upstream)
        }
    }

    /// Copies what the client sent to the server as it comes; `false` when the link has ended.
    func forwardFromClient(_ link: inout RelayLink, buffer: inout [UInt8]) -> Bool {
        let count = recv(link.client, &buffer, buffer.count, 0)
        guard count > 0, Self.sendAll(link.upstream, buffer[0..<count]) else { return false }
        link.lastActivity = .now
        return true
    }

    /// Reads what the server sent and copies it to the client; `false` when the link has ended.
    func forwardFromServer(_ link: inout RelayLink, buffer: inout [UInt8]) -> Bool {
        let count = recv(link.upstream, &buffer, buffer.count, 0)
        guard count > 0 else { return false }
        link.lastActivity = .now
        link.pending = buffer[0..<count]
        return forwardPending(&link)
    }

    /// Whether a paused link may go on (the pause was ended, or lasted its longest); records the end of the pause.
    func resumes(_ link: RelayLink) -> Bool {
        guard let pausedSince = link.pausedSince, let pause else { return true }
        let released = lock.withLock { isPauseReleased } || pausedSince.duration(to: .now) >= pause.longest
        if released { lock.withLock { pauseEnd = .now } }
        return released
    }

    /// Copies the server's bytes that wait in `link.pending` to the client in pieces, up to the cutoff, stopping at
    /// the pause (the rest stays pending); `false` when the link has ended.
    func forwardPending(_ link: inout RelayLink) -> Bool {
        link.pausedSince = nil
        while !link.pending.isEmpty {
            let bytes = link.pending
            var size = Self.pieceSize(using: &link.generator, framing: link.framing)
            size = min(size, bytes.count)
            var truncate = false
            switch cutoff {
            case .afterBytes(let limit) where link.forwarded + size >= limit:
                size = limit - link.forwarded
                truncate = true
            case .insideRecordHeader(let record, let offset):
                let candidate = bytes.prefix(size)
                if let distance = link.framing.distance(toByte: offset, ofHeader: record, within: candidate) {
                    size = distance
                    truncate = true
                }
            default: break
            }
            var pausesAfter = false
            if let pause, link.index == 1, lock.withLock({ pauseStart == nil }),
                let distance = link.framing.distance(
                    toByte: pause.offset, ofHeader: pause.record, within: bytes.prefix(size))
            {
                size = distance
                pausesAfter = true
            }
            let piece = bytes.prefix(size)
            guard Self.sendAll(link.client, piece) else { return false }
            let recordsBefore = link.framing.recordsStarted
            link.framing.advance(over: piece)
            link.forwarded += size
            link.pending = bytes.dropFirst(size)
            let framing = link.framing
            lock.withLock {
                stats.forwardedBytes += size
                stats.pieces += 1
                stats.records += framing.recordsStarted - recordsBefore
                if framing.isInsideHeader { stats.piecesEndingInsideRecordHeader += 1 }
                if truncate { stats.truncatedConnections += 1 }
            }
            if truncate {
                _ = shutdown(link.client, Int32(SHUT_RDWR))
                return false
            }
            if pausesAfter {
                let now = ContinuousClock.now
                lock.withLock { pauseStart = now }
                link.pausedSince = now
                return true
            }
            usleep(20)
        }
        return true
    }

    /// A quarter of the time a piece that ends 1 to 4 bytes into the next record header (when the stream is between
    /// headers); otherwise 1 to 8 bytes or 1 byte to 4 KB, evenly.
    private static func pieceSize(using generator: inout SplitMix64, framing: RecordFraming) -> Int {
        switch Int.random(in: 0..<4, using: &generator) {
        case 0 where framing.isAtRecordStart || framing.fragmentRemaining > 0:
            return framing.fragmentRemaining + Int.random(in: 1...4, using: &generator)
        case 0, 1: return Int.random(in: 1...8, using: &generator)
        default: return Int.random(in: 1...4096, using: &generator)
        }
    }

    private static func sendAll(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let sent = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}

/// One client's connection through a ``FragmentingRelay`` and the relay's own to the server, with the state of the
/// server's stream so far.
struct RelayLink {
    let relay: FragmentingRelay
    let client: Int32
    let upstream: Int32
    let index: UInt64
    var generator: SplitMix64
    var framing = RecordFraming()
    var forwarded = 0
    var lastActivity = ContinuousClock.now
    /// The server's bytes read and not yet sent to the client (held during a pause).
    var pending: ArraySlice<UInt8> = []
    /// When the link's pause began; nil while it is not paused.
    var pausedSince: ContinuousClock.Instant?
}

/// The one thread that serves every ``FragmentingRelay`` of the process, with poll(2): it accepts each relay's
/// connections and copies their bytes both ways, so that relays running at once in parallel tests take one thread
/// between them, not two or more each.
///
/// ```swift
/// try RelayLoop.shared.add(relay)
/// ```
final class RelayLoop: @unchecked Sendable {
    /// The loop of the process, whose thread starts with the first relay.
    static let shared = RelayLoop()

    // Safe: `added` and `isRunning` are only touched while holding `condition`; `wakeUp` is set once; `relays`,
    // `links` and `buffer` only on the loop's thread.
    private let condition = NSCondition()
    private var added: [FragmentingRelay] = []
    private var isRunning = false
    /// A pipe whose read end the loop polls, written to when a relay is added.
    private let wakeUp: (read: Int32, write: Int32)
    private var relays: [FragmentingRelay] = []
    private var links: [RelayLink] = []
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)

    private init() {
        var descriptors: [Int32] = [-1, -1]
        if pipe(&descriptors) == 0 {
            for descriptor in descriptors { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) }
        }
        wakeUp = (descriptors[0], descriptors[1])
    }

    /// Serves `relay` from now on, starting the loop's thread if it has none.
    ///
    /// - Throws: `POSIXError` when the system refuses the thread.
    func add(_ relay: FragmentingRelay) throws {
        let starts = condition.withLock {
            added.append(relay)
            condition.signal()
            defer { isRunning = true }
            return !isRunning
        }
        if starts {
            do {
                try DetachedThread.start(name: "RequestKitTests.relays") { [self] in run() }
            } catch {
                condition.withLock {
                    isRunning = false
                    added.removeAll { $0 === relay }
                }
                throw error
            }
        } else {
            var byte: UInt8 = 1
            _ = write(wakeUp.write, &byte, 1)
        }
    }

    private func run() {
        while true {
            condition.withLock {
                while added.isEmpty, relays.isEmpty, links.isEmpty { condition.wait() }
                relays.append(contentsOf: added)
                added.removeAll()
            }
            relays.removeAll { relay in
                guard relay.isStoppedNow else { return false }
                _ = close(relay.listener)
                return true
            }
            var descriptors = [pollfd(fd: wakeUp.read, events: Int16(POLLIN), revents: 0)]
            for relay in relays { descriptors.append(pollfd(fd: relay.listener, events: Int16(POLLIN), revents: 0)) }
            let linksStart = descriptors.count
            for link in links {
                // A paused link is not read either way until its pause ends, as a relay stuck mid-stream would not.
                let events = link.pausedSince == nil ? Int16(POLLIN) : 0
                descriptors.append(pollfd(fd: link.client, events: events, revents: 0))
                descriptors.append(pollfd(fd: link.upstream, events: events, revents: 0))
            }
            // Paused links are looked at every 2 ms; otherwise a second at most, to end links gone idle.
            let timeout: Int32 = links.contains { $0.pausedSince != nil } ? 2 : 1_000
            guard poll(&descriptors, nfds_t(descriptors.count), timeout) >= 0 || errno == EINTR else { continue }
            if descriptors[0].revents != 0 {
                var bytes = [UInt8](repeating: 0, count: 64)
                while read(wakeUp.read, &bytes, bytes.count) > 0 {}
            }
            var remaining: [RelayLink] = []
            for (position, var link) in links.enumerated() {
                let clientReady = descriptors[linksStart + position * 2].revents != 0
                let upstreamReady = descriptors[linksStart + position * 2 + 1].revents != 0
                var isOpen = true
                if link.pausedSince != nil {
                    if link.relay.resumes(link) {
                        // The pause was the relay's doing, not the link's idleness: the idle limit counts from now.
                        link.lastActivity = .now
                        isOpen = link.relay.forwardPending(&link)
                    }
                } else {
                    if clientReady { isOpen = link.relay.forwardFromClient(&link, buffer: &buffer) }
                    if isOpen, upstreamReady { isOpen = link.relay.forwardFromServer(&link, buffer: &buffer) }
                    if isOpen, !clientReady, !upstreamReady,
                        link.lastActivity.duration(to: .now) >= FragmentingRelay.idleLimit
                    {
                        isOpen = false
                    }
                }
                if isOpen {
                    remaining.append(link)
                } else {
                    link.relay.end(link)
                }
            }
            for (position, relay) in relays.enumerated() where descriptors[1 + position].revents != 0 {
                if let link = relay.acceptLink() { remaining.append(link) }
            }
            links = remaining
        }
    }
}

/// Follows TLS record framing (a 5-byte header whose last two bytes are the length of the fragment after it) over a
/// stream of bytes.
struct RecordFraming {
    private var header: [UInt8] = []
    /// Bytes of the current record's fragment still to come (0 at a record start or inside a header).
    private(set) var fragmentRemaining = 0
    /// Records whose header has started.
    private(set) var recordsStarted = 0

    /// Whether the bytes so far end after 1 to 4 bytes of a record header.
    var isInsideHeader: Bool { !header.isEmpty }
    /// How many of `bytes`, which come next, take the stream to `offset` (1 to 4) bytes into the header of record
    /// number `record` (from 1); `nil` when that point is not among them.
    func distance(toByte offset: Int, ofHeader record: Int, within bytes: ArraySlice<UInt8>) -> Int? {
        var copy = self
        for (count, index) in bytes.indices.enumerated() {
            copy.advance(over: bytes[index...index])
            if copy.recordsStarted == record, copy.header.count == offset { return count + 1 }
            if copy.recordsStarted > record { return nil }
        }
        return nil
    }

    /// Whether the bytes so far end exactly where a record header starts.
    var isAtRecordStart: Bool { header.isEmpty && fragmentRemaining == 0 }

    mutating func advance(over bytes: ArraySlice<UInt8>) {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if fragmentRemaining > 0 {
                let step = min(fragmentRemaining, bytes.endIndex - index)
                fragmentRemaining -= step
                index += step
                continue
            }
            if header.isEmpty { recordsStarted += 1 }
            header.append(bytes[index])
            index += 1
            if header.count == 5 {
                fragmentRemaining = Int(header[3]) << 8 | Int(header[4])
                header.removeAll()
            }
        }
    }
}
#endif

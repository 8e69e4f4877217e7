#if canImport(Glibc)
import Foundation
import Glibc
import RequestKitModel

import RequestKitNativeTransport

/// A DNS server on a UDP port of 127.0.0.1 that answers `A` and `AAAA` queries as scripted: addresses with a TTL,
/// late, never, or with an error code. It counts the queries it gets per name and type. One thread serves it with
/// poll(2); a late answer waits in its queue, not on a thread.
///
/// ```swift
/// let dns = try ScriptedDNSServer()
/// dns.answer("dual.test", .aaaa, with: ["2001:db8::1"], ttl: 60, after: .milliseconds(300))
/// ```
final class ScriptedDNSServer: @unchecked Sendable {
    enum RecordType: UInt16, Sendable {
        case a = 1
        case aaaa = 28
    }

    enum Reply: Sendable {
        /// Records of the type asked, with their TTL (none: the name exists with no record of that type).
        case records([String], ttl: UInt32)
        /// An error code: 2 SERVFAIL, 3 NXDOMAIN, 5 REFUSED.
        case error(UInt8)
        /// No answer at all.
        case silence
    }

    private struct Script {
        var reply: Reply
        var delay: Duration
    }

    // Safe: `scripts`, `counts`, `pending` and `isStopped` are only touched while holding `lock`.
    private let lock = NSLock()
    private var scripts: [String: Script] = [:]
    private var counts: [String: Int] = [:]
    private var isStopped = false
    private let descriptor: Int32
    /// The server's address, for the resolver's server list.
    let address: SocketAddress

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0,
            let address = SocketAddress(ip: "127.0.0.1", port: Int(UInt16(bigEndian: local.sin_port)))
        else {
            close(descriptor)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.descriptor = descriptor
        self.address = address
        try DetachedThread.start(name: "ScriptedDNS") { [self] in serve() }
    }

    deinit { close(descriptor) }

    /// Scripts the reply to queries of `type` for `name`, sent `delay` after each query.
    func answer(_ name: String, _ type: RecordType, _ reply: Reply, after delay: Duration = .zero) {
        lock.withLock { scripts["\(name.lowercased())/\(type.rawValue)"] = Script(reply: reply, delay: delay) }
    }

    /// How many queries of `type` for `name` came.
    func queries(_ name: String, _ type: RecordType) -> Int {
        lock.withLock { counts["\(name.lowercased())/\(type.rawValue)"] ?? 0 }
    }

    func stop() {
        lock.withLock { isStopped = true }
    }

    private func serve() {
        var late: [(due: ContinuousClock.Instant, bytes: [UInt8], to: sockaddr_in)] = []
        var buffer = [UInt8](repeating: 0, count: 1500)
        while !lock.withLock({ isStopped }) {
            let now = ContinuousClock.now
            for reply in late where reply.due <= now { send(reply.bytes, to: reply.to) }
            late.removeAll { $0.due <= now }
            let wait = late.map { now.duration(to: $0.due) }.min().map { Self.milliseconds($0) } ?? 50
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(min(max(wait, 0), 50))) > 0 else { continue }
            var peer = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let count = buffer.withUnsafeMutableBytes { raw in
                withUnsafeMutablePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(descriptor, raw.baseAddress, raw.count, 0, $0, &length)
                    }
                }
            }
            guard count > 0, let (reply, delay) = respond(to: Array(buffer.prefix(count))) else { continue }
            if delay == .zero {
                send(reply, to: peer)
            } else {
                late.append((now + delay, reply, peer))
            }
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000) + 1
    }

    private func send(_ bytes: [UInt8], to peer: sockaddr_in) {
        var peer = peer
        _ = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// The reply to a query and when to send it; nil for no reply.
    private func respond(to query: [UInt8]) -> (bytes: [UInt8], delay: Duration)? {
        guard query.count >= 12 else { return nil }
        var index = 12
        var labels: [String] = []
        while index < query.count, query[index] != 0 {
            let length = Int(query[index])
            guard length < 64, index + 1 + length <= query.count else { return nil }
            labels.append(String(decoding: query[(index + 1)..<(index + 1 + length)], as: UTF8.self))
            index += 1 + length
        }
        guard index + 5 <= query.count else { return nil }
        let questionEnd = index + 5
        let type = UInt16(query[index + 1]) << 8 | UInt16(query[index + 2])
        let name = labels.joined(separator: ".").lowercased()
        let key = "\(name)/\(type)"
        let script: Script? = lock.withLock {
            counts[key, default: 0] += 1
            return scripts[key]
        }
        let reply = script?.reply ?? .error(3)
        var answers: [[UInt8]] = []
        var code: UInt8 = 0
        switch reply {
        case .silence: return nil
        case .error(let error): code = error
        case .records(let addresses, let ttl):
            for text in addresses {
                var data = [UInt8](repeating: 0, count: type == 28 ? 16 : 4)
                guard inet_pton(type == 28 ? AF_INET6 : AF_INET, text, &data) == 1 else { continue }
                var record: [UInt8] = [0xC0, 0x0C, UInt8(type >> 8), UInt8(type & 0xFF), 0, 1]
                record += [UInt8(ttl >> 24), UInt8((ttl >> 16) & 0xFF), UInt8((ttl >> 8) & 0xFF), UInt8(ttl & 0xFF)]
                record += [0, UInt8(data.count)] + data
                answers.append(record)
            }
        }
        var bytes = [
            query[0], query[1], 0x80 | (query[2] & 0x01), 0x80 | code, 0, 1, 0, UInt8(answers.count), 0, 0, 0, 0,
        ]
        bytes += query[12..<questionEnd]
        for answer in answers { bytes += answer }
        return (bytes, script?.delay ?? .zero)
    }
}
#endif

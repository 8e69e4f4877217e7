#if os(Linux)
import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitSockets
import RequestKitTestSupport
import RequestKitTesting
import Testing

import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The native transport reading TLS records that arrive in arbitrary pieces: a ``FragmentingRelay`` between
/// ``NativeTransport`` and a TLS ``TestServer`` forwards the server's bytes in seeded random pieces (often splitting
/// record headers), and in the truncation cases ends the connection part-way through the server's stream.
///
/// Each exchange names its seed; to replay one, run with `REQUESTKIT_TLS_RELAY_SEED=<seed>`.
@Suite("TLS record boundaries through a fragmenting relay", .wallClock)
struct TLSRecordBoundaryTests {
    /// The body of `/bytes/20000?seed=…`: more than one TLS record.
    private static let bodySize = 20_000
    /// Exchanges each test runs, unless one seed is given to replay.
    private static let exchanges = 100
    /// How many exchanges run at a time.
    private static let width = 4

    private static let trustingTestCA = TLSConfiguration(
        additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])

    /// The seeds to run: the one in `REQUESTKIT_TLS_RELAY_SEED`, or `base..<base + exchanges`.
    private static func seeds(base: UInt64) -> [UInt64] {
        if let text = ProcessInfo.processInfo.environment["REQUESTKIT_TLS_RELAY_SEED"], let seed = UInt64(text) {
            return [seed]
        }
        return (0..<UInt64(exchanges)).map { base + $0 }
    }

    /// One GET of `/bytes/20000?seed=<seed>` through a relay, on a fresh transport (so that no connection is reused).
    private static func exchange(
        server: TestServer, seed: UInt64, cutoff: FragmentingRelay.Cutoff?
    ) async throws -> (
        Result<Data, RequestError>, FragmentingRelay.Stats
    ) {
        let relay = try FragmentingRelay(upstreamPort: server.port, seed: seed, cutoff: cutoff)
        defer { relay.stop() }
        let transport = NativeTransport { $0.tls = trustingTestCA }
        do {
            let data = try await Request {
                Url("https://127.0.0.1:\(relay.port)/bytes/\(bodySize)?seed=\(seed)")
                Using(transport)
                // Generous: an exchange takes milliseconds, and only a hang should reach the limit.
                Timeout(120)
            }.data()
            return (.success(data), relay.currentStats)
        } catch {
            return (.failure(error), relay.currentStats)
        }
    }

    /// An error's kind and the reason its description gives in parentheses, without the host and port.
    private static func reason(_ error: RequestError) -> String {
        let text = error.description
        guard let open = text.firstIndex(of: "("), let close = text[open...].firstIndex(of: ")") else {
            return "\(error.kind): \(text)"
        }
        return "\(error.kind): \(text[open...close])"
    }

    /// Runs `body` for every seed, `width` at a time.
    private static func forEachSeed<Outcome: Sendable>(
        _ seeds: [UInt64], _ body: @escaping @Sendable (UInt64) async -> Outcome
    ) async -> [Outcome] {
        await withTaskGroup(of: Outcome.self) { group in
            var results: [Outcome] = []
            var pending = seeds[...]
            for _ in 0..<width {
                guard let seed = pending.popFirst() else { break }
                group.addTask { await body(seed) }
            }
            for await stats in group {
                results.append(stats)
                if let seed = pending.popFirst() { group.addTask { await body(seed) } }
            }
            return results
        }
    }

    @Test(
        "A record header cut short and then stalled makes the loop wait for the rest, not spin: another request is answered meanwhile",
        arguments: [2, 3])
    func stalledRecordHeader(record: Int) async throws {
        let server = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { server.stop() }
        let plain = try TestServer()
        defer { plain.stop() }
        // The pause lasts until the other request is answered; its cap only ends a test whose loop never answers.
        let relay = try FragmentingRelay(
            upstreamPort: server.port, seed: 1,
            pause: .init(record: record, offset: 3, longest: .seconds(300)))
        defer { relay.stop() }
        // The default loop count: one loop, shared with `other`; a handshake that outlasts the pause.
        let transport = NativeTransport {
            $0.tls = Self.trustingTestCA
            $0.connectTimeout = 300
        }
        let other = NativeTransport()
        let stalled = Task {
            try await transport.send(URLRequest(url: try #require(URL(string: "https://127.0.0.1:\(relay.port)/get"))))
        }
        // Waits as long as the relay's cap: a starved machine may take minutes to reach the pause; a request that
        // ended before it did is reported with its outcome.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(240)
        while relay.pauseStarted == nil, clock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        if relay.pauseStarted == nil {
            relay.endPause()
            let outcome = await stalled.result
            Issue.record("the handshake never reached the pause; the request ended with \(outcome)")
            return
        }
        let answered = try await other.send(URLRequest(url: plain.url("/get")))
        let answeredDuringPause = relay.pauseEnded == nil
        relay.endPause()
        #expect(answered.statusCode == 200)
        #expect(answeredDuringPause, "the other request waited for the stalled record")
        #expect(try await stalled.value.statusCode == 200)
    }

    @Test("However the server's bytes are cut into pieces, every response arrives whole and exact")
    func fragmentedExchanges() async throws {
        let server = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { server.stop() }
        let seeds = Self.seeds(base: 1)
        let all = await Self.forEachSeed(seeds) { seed in
            guard let (result, stats) = try? await Self.exchange(server: server, seed: seed, cutoff: nil) else {
                Issue.record("seed \(seed): the relay did not start")
                return FragmentingRelay.Stats()
            }
            switch result {
            case .success(let data):
                #expect(data == TestPayload.randomBytes(count: Self.bodySize, seed: seed), "seed \(seed)")
            case .failure(let error):
                Issue.record("seed \(seed): \(error)")
            }
            #expect(stats.truncatedConnections == 0, "seed \(seed)")
            return stats
        }
        let pieces = all.map(\.pieces).reduce(0, +)
        let insideHeaders = all.map(\.piecesEndingInsideRecordHeader).reduce(0, +)
        print("TLS relay: \(seeds.count) exchanges, \(pieces) pieces, \(insideHeaders) ending inside a record header")
        if seeds.count == Self.exchanges { #expect(insideHeaders > 0) }
    }

    @Test("A server stream cut mid-record fails with a typed error, never a partial body")
    func truncatedExchanges() async throws {
        let server = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { server.stop() }
        // One whole exchange measures how many bytes and records the server sends; the cuts fall before its last 32
        // bytes, or inside the header of one of its records.
        let (whole, measured) = try await Self.exchange(server: server, seed: 0, cutoff: nil)
        #expect((try? whole.get()) == TestPayload.randomBytes(count: Self.bodySize, seed: 0))
        let total = measured.forwardedBytes
        let records = measured.records
        try #require(total > Self.bodySize && records > 2)
        let seeds = Self.seeds(base: 10_001)
        let messages = await Self.forEachSeed(seeds) { seed -> String? in
            // A uniform offset over the server's stream (handshake, tickets, headers and fragments of the response),
            // with the pieces' own small sizes, puts cuts inside record headers and fragments alike.
            var generator = SplitMix64(state: seed)
            let cutoff: FragmentingRelay.Cutoff =
                Bool.random(using: &generator)
                ? .afterBytes(Int.random(in: 1...(total - 32), using: &generator))
                : .insideRecordHeader(
                    record: Int.random(in: 1...records, using: &generator),
                    offset: Int.random(in: 1...4, using: &generator))
            guard let (result, stats) = try? await Self.exchange(server: server, seed: seed, cutoff: cutoff) else {
                Issue.record("seed \(seed): the relay did not start")
                return nil
            }
            #expect(stats.truncatedConnections >= 1, "seed \(seed), cut \(cutoff)")
            switch result {
            case .success(let data):
                Issue.record("seed \(seed), cut \(cutoff) of \(total): succeeded with \(data.count) bytes")
                return nil
            case .failure(let error):
                #expect([.tls, .transport].contains(error.kind), "seed \(seed), cut \(cutoff): \(error)")
                #expect(error.description.contains("closed"), "seed \(seed), cut \(cutoff): \(error)")
                return Self.reason(error)
            }
        }
        let counts = messages.compactMap { $0 }.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        print("TLS relay: \(seeds.count) truncated exchanges of \(total) server bytes in \(records) records; errors:")
        for (reason, count) in counts.sorted(by: { $0.key < $1.key }) { print("  \(count) × \(reason)") }
    }
}
#endif

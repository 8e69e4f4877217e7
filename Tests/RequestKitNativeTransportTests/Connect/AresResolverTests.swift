#if canImport(CAres)
import Foundation
import Testing

import RequestKitConnect
import RequestKitModel
import RequestKitNativeTransport
import RequestKitTestSupport

/// The system resolver (c-ares) on the native transport's event loop, against a scripted DNS server on
/// 127.0.0.1: the records and TTLs it answers, its failures, a late answer, no answer, and `/etc/hosts`.
@Suite("c-ares resolver", .wallClock)
struct AresResolverTests {
    typealias Outcome = Result<ResolvedAddresses, ResolutionFailure>

    /// One loop for every test of the suite: a loop's thread lasts for the life of the process.
    static let loop: EventLoop? = try? EventLoop(name: "ResolverTests")

    /// A resolver made, used and closed on the loop.
    final class OnLoop: @unchecked Sendable {
        // Safe: `resolver` is only touched on the loop's thread.
        let loop: EventLoop
        var resolver: AresResolver<EventLoop>?

        init(_ loop: EventLoop, options: AresResolver<EventLoop>.Options) async throws {
            self.loop = loop
            let made: Result<AresResolver<EventLoop>, ResolutionFailure> = await withCheckedContinuation {
                continuation in
                loop.execute {
                    continuation.resume(
                        returning: Result { () throws(ResolutionFailure) in
                            try AresResolver(loop: loop, options: options)
                        })
                }
            }
            let resolver = try made.get()
            loop.execute { self.resolver = resolver }
        }

        /// Asks for both families at once; the answers in the order they came.
        func resolveBoth(_ host: String) async -> [(SocketAddress.Family, Outcome)] {
            await withCheckedContinuation { continuation in
                loop.execute {
                    var answers: [(SocketAddress.Family, Outcome)] = []
                    for family in [SocketAddress.Family.ipv6, .ipv4] {
                        self.resolver?.resolve(host: host, port: 443, family: family) { outcome in
                            answers.append((family, outcome))
                            if answers.count == 2 { continuation.resume(returning: answers) }
                        }
                    }
                }
            }
        }

        func resolve(_ host: String, _ family: SocketAddress.Family) async -> Outcome {
            await withCheckedContinuation { continuation in
                loop.execute {
                    guard let resolver = self.resolver else {
                        continuation.resume(returning: .failure(ResolutionFailure(.other, "closed")))
                        return
                    }
                    resolver.resolve(host: host, port: 443, family: family) { continuation.resume(returning: $0) }
                }
            }
        }

        func close() {
            loop.execute {
                self.resolver?.close()
                self.resolver = nil
            }
        }
    }

    static func setUp(
        queryTimeout: Duration? = nil
    ) async throws -> (ScriptedDNSServer, OnLoop) {
        let loop = try #require(Self.loop)
        let dns = try ScriptedDNSServer()
        let resolver = try await OnLoop(
            loop, options: .init(servers: [dns.address], queryTimeout: queryTimeout, tries: 1))
        return (dns, resolver)
    }

    @Test("A and AAAA come back with their addresses, the port asked for and the smallest TTL")
    func answersWithTTL() async throws {
        let (dns, resolver) = try await Self.setUp()
        defer {
            resolver.close()
            dns.stop()
        }
        dns.answer("dual.requestkit.test", .a, .records(["192.0.2.1", "192.0.2.2"], ttl: 60))
        dns.answer("dual.requestkit.test", .aaaa, .records(["2001:db8::1"], ttl: 30))
        let v4 = try await resolver.resolve("dual.requestkit.test", .ipv4).get()
        #expect(v4.addresses.map(\.description) == ["192.0.2.1:443", "192.0.2.2:443"])
        #expect(v4.timeToLive == .seconds(60))
        let v6 = try await resolver.resolve("dual.requestkit.test", .ipv6).get()
        #expect(v6.addresses.map(\.description) == ["[2001:db8::1]:443"])
        #expect(v6.timeToLive == .seconds(30))
        #expect(dns.queries("dual.requestkit.test", .a) == 1)
        #expect(dns.queries("dual.requestkit.test", .aaaa) == 1)
    }

    @Test("a late AAAA answer does not hold back the A answer")
    func lateAAAA() async throws {
        let (dns, resolver) = try await Self.setUp()
        defer {
            resolver.close()
            dns.stop()
        }
        dns.answer("late.requestkit.test", .a, .records(["192.0.2.1"], ttl: 60))
        dns.answer("late.requestkit.test", .aaaa, .records(["2001:db8::1"], ttl: 60), after: .milliseconds(300))
        let answers = await resolver.resolveBoth("late.requestkit.test")
        #expect(answers.map(\.0) == [.ipv4, .ipv6])
        #expect(answers.allSatisfy { (try? $0.1.get().addresses.count) == 1 })
    }

    @Test("a name that does not exist, a name without AAAA, and a failing server are told apart")
    func failures() async throws {
        let (dns, resolver) = try await Self.setUp()
        defer {
            resolver.close()
            dns.stop()
        }
        dns.answer("v4only.requestkit.test", .a, .records(["192.0.2.1"], ttl: 60))
        dns.answer("v4only.requestkit.test", .aaaa, .records([], ttl: 60))
        dns.answer("broken.requestkit.test", .a, .error(2))
        let missing = await resolver.resolve("missing.requestkit.test", .ipv4)
        #expect(throws: ResolutionFailure.self) { try missing.get() }
        #expect((try? missing.get()) == nil)
        if case .failure(let failure) = missing { #expect(failure.kind == .notFound, "\(failure)") }
        if case .failure(let failure) = await resolver.resolve("v4only.requestkit.test", .ipv6) {
            #expect(failure.kind == .noAddress, "\(failure)")
        } else {
            Issue.record("an AAAA query without records resolved")
        }
        if case .failure(let failure) = await resolver.resolve("broken.requestkit.test", .ipv4) {
            #expect(failure.kind == .serverFailed, "\(failure)")
        } else {
            Issue.record("a SERVFAIL resolved")
        }
    }

    @Test("a server that never answers ends in a timeout, driven by the loop's timer")
    func silentServer() async throws {
        let (dns, resolver) = try await Self.setUp(queryTimeout: .milliseconds(200))
        defer {
            resolver.close()
            dns.stop()
        }
        dns.answer("silent.requestkit.test", .a, .silence)
        guard case .failure(let failure) = await resolver.resolve("silent.requestkit.test", .ipv4) else {
            Issue.record("a query nobody answered resolved")
            return
        }
        #expect(failure.kind == .timedOut, "\(failure)")
        #expect(dns.queries("silent.requestkit.test", .a) >= 1)
    }

    @Test("/etc/hosts answers localhost without asking the server")
    func hostsFile() async throws {
        let (dns, resolver) = try await Self.setUp()
        defer {
            resolver.close()
            dns.stop()
        }
        let answer = try await resolver.resolve("localhost", .ipv4).get()
        #expect(answer.addresses.map(\.description).contains("127.0.0.1:443"))
        #expect(dns.queries("localhost", .a) == 0)
    }

    @Test("closing the resolver ends the queries under way with a failure")
    func closeEndsQueries() async throws {
        let (dns, resolver) = try await Self.setUp()
        defer { dns.stop() }
        dns.answer("held.requestkit.test", .a, .silence)
        let outcome: Outcome = await withCheckedContinuation { continuation in
            resolver.loop.execute {
                resolver.resolver?.resolve(host: "held.requestkit.test", port: 443, family: .ipv4) {
                    continuation.resume(returning: $0)
                }
                resolver.resolver?.close()
            }
        }
        guard case .failure(let failure) = outcome else {
            Issue.record("a query under way when the resolver closed resolved")
            return
        }
        #expect(failure.kind == .other, "\(failure)")
    }
}
#endif

import Foundation
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import Testing

@testable import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(
    "NativeTransport: threads", .serialized,
    .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/task")), .wallClock)
struct NativeTransportThreadTests {
    @Test("400 requests to a server that never answers add no thread, and all time out")
    func silentServer() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let transport = NativeTransport { $0.maxConnectionsPerHost = 400 }
        _ = try EventLoopGroup.shared(loops: transport.configuration.eventLoopCount)
        let threadsBefore = transportThreads()
        let url = try #require(URL(string: "http://127.0.0.1:\(listener.port)/never"))
        let started = ContinuousClock.now
        let requests = Task {
            await withTaskGroup(of: RequestError.Kind?.self) { group in
                for _ in 0..<400 {
                    group.addTask {
                        var request = URLRequest(url: url)
                        request.timeoutInterval = 3
                        do {
                            _ = try await transport.send(request)
                            return nil
                        } catch let error as RequestError {
                            return error.kind
                        } catch {
                            return nil
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        var open = 0
        var threadsWhileOpen = threadsBefore
        for _ in 0..<1_500 where open < 400 {
            try await Task.sleep(nanoseconds: 20_000_000)
            open = listener.pendingConnections
        }
        threadsWhileOpen = max(threadsWhileOpen, transportThreads())
        let kinds = await requests.value
        let elapsed = ContinuousClock.now - started

        #expect(open == 400, "all 400 connections were open at once")
        #expect(threadsWhileOpen == threadsBefore)
        #expect(kinds == Array(repeating: .timedOut, count: 400))
        // Their 3 s timeouts fire on the loop on time; the bound is 60 times that, for a parallel, thread-sanitized
        // run on two busy cores, where the 400 tasks wait for the cooperative pool before they can end.
        #expect(elapsed < .seconds(180))
    }

    #if os(Linux)
    /// A child process limits its address space to a little over what it maps already (less than the loop's 1 MiB
    /// stack), so that no thread stack can be mapped. Were the refusal lost (as Foundation's `Thread.start()` loses it), the request would wait forever
    /// for a loop that never runs, and the alarm would end the child.
    @Test(
        "When the system refuses the event loop's thread, a request fails with .transport instead of waiting forever",
        .enabled(if: AddressSpaceLimit.isUsable, "the thread sanitizer cannot run with a limited address space"))
    func refusedLoopThread() async {
        await #expect(processExitsWith: .success) {
            alarm(120)
            guard AddressSpaceLimit.restrict(headroom: (256 << 10)) else { exit(3) }
            guard let url = URL(string: "http://127.0.0.1:9/never") else { exit(4) }
            do {
                _ = try await NativeTransport().send(URLRequest(url: url))
                exit(5)
            } catch let error as RequestError {
                let named = error.kind == .transport && error.description.contains("could not start its event loop")
                exit(
                    named
                        ? 0
                        : error.kind == .transport ? 8 : error.kind == .timedOut ? 9 : error.kind == .cancelled ? 10 : 6
                )
            } catch {
                exit(7)
            }
        }
    }
    #endif

    @Test("With two event loops, connections are spread over both and still pooled per host")
    func twoLoops() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport {
            $0.eventLoopCount = 2
            $0.maxConnectionsPerHost = 4
        }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<16 {
                group.addTask {
                    try await transport.send(URLRequest(url: server.url("/delay/0.05?i=\(index)"))).statusCode
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 16))
        #expect(server.stats.peakConnections == 4)
        #expect(server.stats.totalConnections == 4)
        #expect(transport.idleConnectionCount == 4)
        #expect(try EventLoopGroup.shared(loops: 2).loops.count == 2)
    }

    /// The threads the native transport runs for its connections (event loops before, one per connection before
    /// them): their names start with "RequestKit.Even" (RequestKit.EventLoop.N), as far as Linux keeps them (15 characters). Name lookups,
    /// which other suites may run meanwhile, are left out: these requests need none.
    private func transportThreads() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            guard let handle = FileHandle(forReadingAtPath: "/proc/self/task/\(task)/comm") else { return false }
            defer { try? handle.close() }
            // A thread that ended since the listing reads as an error (ESRCH), not as a name.
            guard let bytes = try? handle.readToEnd() else { return false }
            let name = String(decoding: bytes, as: UTF8.self)
            return name.hasPrefix("RequestKit.Even")
        }.count
    }
}

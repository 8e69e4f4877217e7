import Foundation
import Testing

@testable import RequestKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(
    "HTTP1Transport: threads", .serialized,
    .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/task")))
struct HTTP1TransportThreadTests {
    @Test("400 requests to a server that never answers add no thread, and all time out")
    func silentServer() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let transport = HTTP1Transport { $0.maxConnectionsPerHost = 400 }
        _ = try HTTP1EventLoopGroup.shared(loops: transport.configuration.eventLoopCount)
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
        for _ in 0..<300 where open < 400 {
            try await Task.sleep(nanoseconds: 10_000_000)
            open = socketsConnected(toPort: listener.port)
            threadsWhileOpen = max(threadsWhileOpen, transportThreads())
        }
        let kinds = await requests.value
        let elapsed = ContinuousClock.now - started

        #expect(open >= 400, "all 400 connections were open at once")
        #expect(threadsWhileOpen == threadsBefore)
        #expect(kinds == Array(repeating: .timedOut, count: 400))
        #expect(elapsed < .seconds(30))
    }

    /// The threads the native transport runs (event loops, name lookups): their names start with
    /// "RequestKit.HTTP" ("RequestKit.DNS" for lookups); Linux keeps the first 15 characters.
    private func transportThreads() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            guard let handle = FileHandle(forReadingAtPath: "/proc/self/task/\(task)/comm") else { return false }
            defer { try? handle.close() }
            let name = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            return name.hasPrefix("RequestKit.HTTP") || name.hasPrefix("RequestKit.DNS")
        }.count
    }
}

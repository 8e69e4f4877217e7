import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import Testing

@testable import RequestKitSending

@Suite("The file a download writes", .wallClock)
struct DownloadFileTests {
    @Test("Writes that wait for the disk hold no thread of the cooperative pool, and land in order")
    func writesWaitOffThePool() async throws {
        let folder = try TemporaryFile(contents: Data(), name: "placeholder")
        defer { folder.remove() }
        let disk = StalledDisk()
        // Four times as many stalled files as the pool has threads.
        let count = ProcessInfo.processInfo.activeProcessorCount * 4
        var files: [DownloadFile] = []
        for index in 0..<count {
            let file = try await DownloadFile.create(at: folder.directory.appendingPathComponent("\(index).download")) {
                handle, chunk in
                disk.waitUntilOpen()
                try handle.write(contentsOf: chunk)
            }
            try await file.write(Data("first \(index),".utf8))
            files.append(file)
        }
        // Each second write waits, suspended, for its file's stalled first one.
        var writers: [Task<Void, any Error>] = []
        for file in files { writers.append(Task { try await file.write(Data(" second".utf8)) }) }

        let sum = await withTaskGroup(of: Int.self) { group in
            for value in 1...8 { group.addTask { value } }
            return await group.reduce(0, +)
        }
        disk.record("tasks ran")
        disk.open(by: "the test")
        for writer in writers { try await writer.value }
        for (index, file) in files.enumerated() {
            try await file.finish(movingTo: folder.directory.appendingPathComponent("\(index).bin"))
        }

        #expect(sum == 36)
        #expect(disk.events == ["tasks ran", "opened by the test"])
        for index in 0..<count {
            let written = try String(
                contentsOf: folder.directory.appendingPathComponent("\(index).bin"), encoding: .utf8)
            #expect(written == "first \(index), second")
        }
        #expect(folder.directoryEntries.count == count + 1)
    }

    @Test("A write that fails is thrown by the next call, and a discarded file is removed")
    func failedWrite() async throws {
        let folder = try TemporaryFile(contents: Data(), name: "placeholder")
        defer { folder.remove() }
        let url = folder.directory.appendingPathComponent("part.download")
        let file = try await DownloadFile.create(at: url) { _, _ in throw CocoaError(.fileWriteOutOfSpace) }
        #expect(folder.directoryEntries == ["part.download", "placeholder"])
        // Accepted: the chunk fails on the file's queue, after the call returned.
        try await file.write(Data("a".utf8))
        let next = await #expect(throws: CocoaError.self) { try await file.write(Data("b".utf8)) }
        #expect(next?.code == .fileWriteOutOfSpace)
        let finish = await #expect(throws: CocoaError.self) {
            try await file.finish(movingTo: folder.directory.appendingPathComponent("done.bin"))
        }
        #expect(finish?.code == .fileWriteOutOfSpace)
        await file.discard()
        #expect(folder.directoryEntries == ["placeholder"])
    }

    @Test("A download to a folder that does not exist fails as a transport error naming the file")
    func uncreatableFile() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let folder = try TemporaryFile(contents: Data(), name: "placeholder")
        defer { folder.remove() }
        let destination = folder.directory.appendingPathComponent("missing/out.bin")
        let error = try await #require(throws: RequestError.self) {
            try await Request { Url(server.url("/large/1000")) }.download(to: destination)
        }
        #expect(error.kind == .transport)
        #expect(error.detail?.hasPrefix("cannot create \"\(folder.directory.path)/missing/.out.bin.") == true)
        #expect(folder.directoryEntries == ["placeholder"])
    }
}

/// A disk whose writes wait until the test opens it, or until a minute has passed; it records what happened in
/// which order.
private final class StalledDisk: @unchecked Sendable {
    // Safe: `isOpen` and `log` are read and written while holding `condition`.
    private let condition = NSCondition()
    private var isOpen = false
    private var log: [String] = []

    init() {
        // The watchdog: were the writes to hold the pool's threads, the test could never open the disk itself. A
        // timer, not a thread that waits: it opens an open disk harmlessly.
        DispatchQueue.global().asyncAfter(deadline: .now() + 600) { [self] in open(by: "the watchdog") }
    }

    /// Blocks the calling thread (a download file's queue) until the disk is open.
    func waitUntilOpen() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }

    func open(by opener: String) {
        condition.lock()
        if !isOpen {
            isOpen = true
            log.append("opened by \(opener)")
            condition.broadcast()
        }
        condition.unlock()
    }

    func record(_ event: String) {
        condition.lock()
        log.append(event)
        condition.unlock()
    }

    var events: [String] {
        condition.lock()
        defer { condition.unlock() }
        return log
    }
}

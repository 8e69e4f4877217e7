import Foundation
import RequestKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("ChildProcess: the one way tests start a program", .wallClock)
struct ChildProcessTests {
    @Test("The exit status comes back as it was: exited with a status, or ended by a signal")
    func exitStatus() async throws {
        #expect(try await ChildProcess.run("/bin/sh", ["-c", "exit 0"]).termination == .exited(0))
        #expect(try await ChildProcess.run("/bin/sh", ["-c", "exit 3"]).termination == .exited(3))
        #expect(try await ChildProcess.run("/bin/sh", ["-c", "kill -TERM $$"]).termination == .signalled(SIGTERM))
    }

    @Test("A program that does not exist fails to start with its name in the error")
    func missingProgram() {
        let error = #expect(throws: ChildProcess.SpawnFailure.self) {
            try ChildProcess("/nonexistent/program")
        }
        #expect(error?.description.contains("/nonexistent/program") == true)
    }

    @Test("Standard output and standard error are captured apart, byte for byte, far beyond a pipe's buffer")
    func outputCapturedExactly() async throws {
        let run = try await ChildProcess.run("/bin/sh", ["-c", "seq 1 100000; printf 'to stderr\\n\\001\\377' >&2"])
        #expect(run.termination == .exited(0))
        let expected = (1...100_000).map { "\($0)\n" }.joined()
        #expect(run.output.count == expected.utf8.count)
        #expect(run.output == Data(expected.utf8))
        #expect(run.errors == Data("to stderr\n".utf8) + Data([0x01, 0xFF]))
    }

    @Test("The arguments arrive one by one, spaces and quotes included")
    func arguments() async throws {
        let run = try await ChildProcess.run("/usr/bin/printf", ["[%s]\\n", "a b", "'quoted'", "", "$HOME"])
        #expect(String(decoding: run.output, as: UTF8.self) == "[a b]\n['quoted']\n[]\n[$HOME]\n")
    }

    @Test("The environment given is the child's whole environment; none given passes this process's own")
    func environment() async throws {
        let given = try await ChildProcess.run(
            "/usr/bin/env", environment: ["REQUESTKIT_CHILD": "a value = with spaces", "LANG": "C"])
        let lines = String(decoding: given.output, as: UTF8.self).split(separator: "\n").sorted()
        #expect(lines == ["LANG=C", "REQUESTKIT_CHILD=a value = with spaces"])

        let inherited = try await ChildProcess.run("/usr/bin/env")
        let inheritedLines = Set(
            String(decoding: inherited.output, as: UTF8.self).split(separator: "\n").map(String.init))
        let ours = ProcessInfo.processInfo.environment.filter { !$0.value.contains("\n") }
        #expect(Set(ours.map { "\($0.key)=\($0.value)" }).isSubset(of: inheritedLines))
    }

    @Test("The child starts in the working directory given")
    func workingDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await ChildProcess.run("/bin/sh", ["-c", "pwd -P"], workingDirectory: directory)
        #expect(String(decoding: run.output, as: UTF8.self) == directory.resolvingSymlinksInPath().path + "\n")
    }

    @Test("Output sent to a file is in the file once the child has ended; discarded output goes nowhere")
    func outputToFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("an older, longer content".utf8).write(to: file)
        let child = try ChildProcess(
            "/bin/sh", ["-c", "echo to the file; echo discarded >&2"], standardOutput: .file(file))
        #expect(await child.termination() == .exited(0))
        #expect(try Data(contentsOf: file) == Data("to the file\n".utf8))
        #expect(await child.standardOutput() == Data())
        #expect(await child.standardError() == Data())
    }

    @Test(
        "terminate() kills the child's whole process group, a program it started included", .timeLimit(.minutes(5)))
    func terminateEndsTheGroup() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        // The background `sleep` is in the child's process group: it ends with the child.
        let child = try ChildProcess(
            "/bin/sh", ["-c", "sleep 1000 & echo started; wait"], standardOutput: .file(file),
            standardError: .captured)
        var started = false
        for _ in 0..<3000 where !started {
            started = (try? Data(contentsOf: file)) == Data("started\n".utf8)
            if !started { try await Task.sleep(for: .milliseconds(10)) }
        }
        try #require(started)
        #expect(child.isRunning)
        child.terminate()
        #expect(await child.termination() == .signalled(SIGKILL))
        #expect(await child.standardError() == Data())
        #expect(!child.isRunning)
    }

    @Test("A child still running when its ChildProcess goes away is killed and reaped")
    func outlivingChildIsTerminated() async throws {
        let identifier = try Self.startAndForget("/bin/sleep", ["1000"])
        // Reaped: the identifier names no process any more (a zombie still would).
        var reaped = false
        for _ in 0..<3000 where !reaped {
            reaped = kill(identifier, 0) == -1 && errno == ESRCH
            if !reaped { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(reaped, "process \(identifier) is still there")
    }

    private static func startAndForget(_ executable: String, _ arguments: [String]) throws -> pid_t {
        let child = try ChildProcess(executable, arguments)
        #expect(child.isRunning)
        return child.identifier
    }

    #if os(Linux)
    @Test("No descriptor of this process reaches the child, close-on-exec or not")
    func noDescriptorLeaks() async throws {
        // Descriptors opened the old way, without close-on-exec, as some libraries still do.
        let file = open("/dev/null", O_RDONLY)
        let copy = dup(file)
        defer {
            _ = close(file)
            _ = close(copy)
        }
        #expect(file > 2 && copy > 2)
        let ours = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { Int($0) }
        #expect(ours.count > 4)

        // `ls` lists its own descriptors: the three standard streams and the directory it reads.
        let run = try await ChildProcess.run("/bin/ls", ["/proc/self/fd"])
        #expect(run.termination == .exited(0))
        let theirs = String(decoding: run.output, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        #expect(theirs.sorted() == [0, 1, 2, 3])
    }

    @Test("Where the C library cannot close every descriptor from 3 up, those listed in /proc/self/fd are closed")
    func noDescriptorLeaksWhenListed() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let inherited = open("/dev/null", O_RDONLY)
        defer { _ = close(inherited) }
        #expect(inherited > 3)
        var request = SpawnRequest(
            executable: "/bin/ls", arguments: ["/proc/self/fd"], environment: [:], workingDirectory: nil,
            standardOutput: .file(file), standardError: .discarded)
        request.listsDescriptorsToClose = true
        let identifier = try request.spawn()
        #expect(await ChildExit(identifier: identifier).termination() == .exited(0))
        let theirs = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").compactMap { Int($0) }
        // The standard streams and `ls`'s directory; a descriptor another test opened without close-on-exec
        // between the listing and the spawn may reach the child too (the window this way leaves open), but never
        // one that was listed.
        #expect(Array(theirs.sorted().prefix(3)) == [0, 1, 2])
        #expect(!theirs.contains(Int(inherited)))
    }
    #endif
}

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A program a test runs (nginx, a proxy, curl, this test binary again), started with `posix_spawn`: the one way
/// the tests start a process.
///
/// Foundation's `Process` is not used: swift-corelibs-foundation up to Swift 6.3.1 reads past `readdir`'s buffer
/// while it lists `/proc/self/fd` to close the parent's descriptors in the child, and so crashes at random in a
/// process with many descriptors open, as the test process is.
///
/// The child gets exactly the arguments and environment given (this process's environment when none is), starts
/// in `workingDirectory` when one is given, reads its standard input from `/dev/null`, writes each output stream
/// where its ``Output`` says, and inherits no other descriptor of this process. It starts with no signal blocked
/// and every signal at its default action, in a process group of its own, which ``terminate()`` kills: a program
/// that forks (nginx and its worker) ends whole. Its end is noticed without blocking a thread (see ``ChildExit``).
/// A child still running when its `ChildProcess` goes away is killed, so none outlives the test that started it.
///
/// ```swift
/// let curl = try ChildProcess("/usr/bin/curl", ["--silent", url.absoluteString], standardOutput: .captured)
/// #expect(await curl.termination() == .exited(0))
/// let body = await curl.standardOutput()
/// ```
package final class ChildProcess: Sendable {
    /// Where one of the child's output streams goes.
    package enum Output: Sendable {
        /// `/dev/null`.
        case discarded
        /// A temporary file this process reads once the child has ended: ``ChildProcess/standardOutput()`` and
        /// ``ChildProcess/standardError()`` return what arrived.
        case captured
        /// A file, created or truncated.
        case file(URL)
    }

    /// How a child ended.
    package enum Termination: Equatable, Sendable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)

        package var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "ended by signal \(signal)"
            }
        }
    }

    /// Why a child could not be started.
    package struct SpawnFailure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The child's process identifier, which is also its process group's.
    package let identifier: pid_t
    private let ending: ChildExit
    private let output: CapturedOutput?
    private let errors: CapturedOutput?

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - executable: The program's absolute path, also the child's `argv[0]`.
    ///   - arguments: The arguments after `argv[0]`.
    ///   - environment: The child's whole environment; `nil` passes this process's own.
    ///   - workingDirectory: The directory the child starts in; `nil` keeps this process's.
    ///   - standardOutput: Where the child's standard output goes.
    ///   - standardError: Where the child's standard error goes.
    /// - Throws: ``SpawnFailure`` when a temporary file cannot be made or `posix_spawn` fails (no such program, for one).
    package init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        workingDirectory: URL? = nil, standardOutput: Output = .discarded, standardError: Output = .discarded
    ) throws {
        var request = SpawnRequest(
            executable: executable, arguments: arguments,
            environment: environment ?? ProcessInfo.processInfo.environment, workingDirectory: workingDirectory,
            standardOutput: standardOutput, standardError: standardError)
        try request.makeCapturedFiles()
        identifier = try request.spawn()
        ending = ChildExit(identifier: identifier)
        output = request.captured[1]
        errors = request.captured[2]
    }

    /// Runs `executable` to its end and returns how it ended, with everything it wrote to its standard output and
    /// its standard error.
    ///
    /// ```swift
    /// let run = try await ChildProcess.run("/bin/echo", ["hi"])
    /// #expect(run.termination == .exited(0) && run.output == Data("hi\n".utf8))
    /// ```
    package static func run(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        workingDirectory: URL? = nil
    ) async throws -> (termination: Termination, output: Data, errors: Data) {
        let child = try ChildProcess(
            executable, arguments, environment: environment, workingDirectory: workingDirectory,
            standardOutput: .captured, standardError: .captured)
        let termination = await child.termination()
        return (termination, await child.standardOutput(), await child.standardError())
    }

    deinit {
        terminate()
    }

    /// Whether the child has not been seen to end yet.
    package var isRunning: Bool { ending.termination == nil }

    /// Waits, without blocking a thread, until the child ends, and returns how it ended.
    package func termination() async -> Termination {
        await ending.termination()
    }

    /// Everything the child wrote to a ``Output/captured`` standard output, once the child has ended; empty for
    /// another ``Output``.
    package func standardOutput() async -> Data {
        _ = await termination()
        return output?.contents() ?? Data()
    }

    /// Everything the child wrote to a ``Output/captured`` standard error, once the child has ended; empty for
    /// another ``Output``.
    package func standardError() async -> Data {
        _ = await termination()
        return errors?.contents() ?? Data()
    }

    /// Kills the child's process group with `SIGKILL`, unless the child has ended: a program that waits for its
    /// connections on `SIGTERM` ends at once too. The child is reaped in the background.
    package func terminate() {
        ending.signalGroup(SIGKILL)
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One `posix_spawn` of a ``ChildProcess``: its captured output files, file actions and attributes.
///
/// In the child, standard input reads `/dev/null`, standard output and standard error go where their
/// ``ChildProcess/Output`` says, and every other descriptor is closed: with `POSIX_SPAWN_CLOEXEC_DEFAULT` on Apple
/// platforms, with `posix_spawn_file_actions_addclosefrom_np` where the C library has it (glibc 2.34 and later),
/// and otherwise by closing, in the child, each descriptor this process lists in `/proc/self/fd` just before the
/// spawn (there, a descriptor another thread opens meanwhile without close-on-exec could still reach the child).
///
/// ```swift
/// var request = SpawnRequest(executable: "/bin/true", arguments: [], environment: [:], workingDirectory: nil,
///                            standardOutput: .discarded, standardError: .discarded)
/// try request.makeCapturedFiles()
/// let pid = try request.spawn()
/// ```
package struct SpawnRequest {
    package let executable: String
    package let arguments: [String]
    package let environment: [String: String]
    package let workingDirectory: URL?
    package let standardOutput: ChildProcess.Output
    package let standardError: ChildProcess.Output
    /// Whether the descriptors to close in the child are listed from `/proc/self/fd` (on Linux), as they are when the
    /// C library has no `posix_spawn_file_actions_addclosefrom_np`; a test sets it to try that way here.
    package var listsDescriptorsToClose = SpawnExtensions.addCloseFrom == nil
    /// The files of the captured streams, by the child's descriptor (1 or 2).
    private(set) var captured: [Int32: CapturedOutput] = [:]

    package init(
        executable: String, arguments: [String], environment: [String: String], workingDirectory: URL?,
        standardOutput: ChildProcess.Output, standardError: ChildProcess.Output
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Makes a temporary file for each captured stream.
    package mutating func makeCapturedFiles() throws {
        for (descriptor, output) in [(Int32(1), standardOutput), (2, standardError)] {
            guard case .captured = output else { continue }
            captured[descriptor] = try CapturedOutput()
        }
    }

    /// Starts the child and returns its process identifier.
    ///
    /// - Throws: ``ChildProcess/SpawnFailure`` when `posix_spawn` fails.
    package mutating func spawn() throws -> pid_t {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (descriptor, output) in [(Int32(1), standardOutput), (2, standardError)] {
            switch output {
            case .discarded:
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
            case .captured:
                if let file = captured[descriptor] {
                    posix_spawn_file_actions_adddup2(&actions, file.descriptor, descriptor)
                }
            case .file(let url):
                posix_spawn_file_actions_addopen(&actions, descriptor, url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            }
        }
        if let workingDirectory {
            guard let addChangeDirectory = SpawnExtensions.addChangeDirectory else {
                throw ChildProcess.SpawnFailure(description: "this C library's posix_spawn cannot change directory")
            }
            _ = addChangeDirectory(&actions, workingDirectory.path)
        }
        var flags = Int32(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        #if canImport(Darwin)
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #else
        if !listsDescriptorsToClose, let addCloseFrom = SpawnExtensions.addCloseFrom {
            _ = addCloseFrom(&actions, 3)
        } else {
            for descriptor in Self.openDescriptors() where descriptor > 2 {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
        }
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))
        posix_spawnattr_setpgroup(&attributes, 0)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)

        // `NULL`-terminated arrays of C strings, as `argv` and `envp` are.
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var identifier: pid_t = 0
        let result = posix_spawn(&identifier, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw ChildProcess.SpawnFailure(
                description: "posix_spawn \(executable): \(String(cString: strerror(result)))")
        }
        return identifier
    }

    #if !canImport(Darwin)
    /// The descriptors open in this process, listed from `/proc/self/fd` one `readdir` entry at a time (the
    /// directory's own descriptor among them, closed by the time the list is used: closing a descriptor that is not
    /// open is no error in a spawn's file actions).
    private static func openDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        var descriptors: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let descriptor = Int32(name) { descriptors.append(descriptor) }
        }
        return descriptors
    }
    #endif
}

/// The `posix_spawn` file actions that extend POSIX, looked up in the C library when first used: Swift's Glibc
/// module does not declare them, and an older C library lacks them.
package enum SpawnExtensions {
    #if canImport(Darwin)
    package typealias Actions = UnsafeMutablePointer<posix_spawn_file_actions_t?>
    #else
    package typealias Actions = UnsafeMutablePointer<posix_spawn_file_actions_t>
    #endif

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34).
    package static let addCloseFrom = function("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self)
    /// `posix_spawn_file_actions_addchdir_np` (glibc 2.29, macOS 10.15).
    package static let addChangeDirectory = function(
        "posix_spawn_file_actions_addchdir_np", as: AddChangeDirectory.self)

    package typealias AddCloseFrom = @convention(c) (Actions, Int32) -> Int32
    package typealias AddChangeDirectory = @convention(c) (Actions, UnsafePointer<CChar>) -> Int32

    private static func function<Function>(_ name: String, as type: Function.Type) -> Function? {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }
}

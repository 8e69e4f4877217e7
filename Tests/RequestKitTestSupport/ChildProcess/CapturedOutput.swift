import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes a child of ``ChildProcess`` writes to one ``ChildProcess/Output/captured`` stream: a temporary file,
/// removed from its directory as soon as it is made, that the child writes through its own copy of the descriptor
/// (so a child that writes much never waits for a reader) and this process reads once the child has ended.
///
/// No pipe and no `DispatchIO` channel: nothing of libdispatch's event loop watches the stream, so no descriptor
/// number is closed and reused under it.
///
/// ```swift
/// let captured = try CapturedOutput()
/// // the child writes to captured.descriptor through dup2
/// let bytes = captured.contents()
/// ```
package final class CapturedOutput: Sendable {
    /// The file's descriptor, closed on `exec` (the child gets its copy through `dup2`).
    package let descriptor: Int32

    /// Makes the temporary file.
    ///
    /// - Throws: ``ChildProcess/SpawnFailure`` when the file cannot be made.
    package init() throws {
        var template = Array(
            FileManager.default.temporaryDirectory.appendingPathComponent("requestkit-child-XXXXXX").path.utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { $0.baseAddress.map { mkstemp($0) } ?? -1 }
        guard descriptor >= 0 else { throw ChildProcess.SpawnFailure(description: "mkstemp: errno \(errno)") }
        template.withUnsafeBufferPointer { buffer in _ = buffer.baseAddress.map { unlink($0) } }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        self.descriptor = descriptor
    }

    deinit {
        _ = close(descriptor)
    }

    /// Everything written to the file so far, read from its start.
    package func contents() -> Data {
        var bytes = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var offset: off_t = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            offset += off_t(count)
        }
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts work on a detached thread of its own, and says so when the system refuses one.
///
/// Foundation's `Thread.start()` does nothing at all when the thread cannot be created (on Linux, `pthread_create`
/// fails with `EAGAIN` once threads or address space run out), so work handed to it is lost without a trace, and
/// whoever waits for that work waits forever. Every thread RequestKit and its test server start goes through here.
///
/// ```swift
/// try DetachedThread.start(name: "RequestKit.DNS") { resolve() }
/// ```
package enum DetachedThread {
    /// Runs `body` on a new detached thread named `name` (on Linux, the system keeps its first 15 bytes).
    ///
    /// - Parameters:
    ///   - name: The thread's name, for debuggers and `/proc`.
    ///   - stackSize: The stack size in bytes, or nil for the system's default.
    ///   - body: The work.
    /// - Throws: `POSIXError` with the code `pthread_create` returned when the system refuses the thread.
    package static func start(
        name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void
    ) throws(POSIXError) {
        let context = Unmanaged.passRetained(Work(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize { pthread_attr_setstacksize(&attributes, max(stackSize, 64 * 1024)) }
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let code = pthread_create(&thread, &attributes, { Work.run($0) }, context)
        guard code == 0 else {
            Unmanaged<Work>.fromOpaque(context).release()
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EAGAIN)
        }
    }

    /// What a new thread runs, passed to it as a retained pointer.
    private final class Work: Sendable {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }

        /// The thread's entry point: takes back the reference passed to `pthread_create`, names the thread and
        /// runs the body.
        static func run(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
            guard let context else { return nil }
            let work = Unmanaged<Work>.fromOpaque(context).takeRetainedValue()
            Thread.current.name = work.name
            work.body()
            return nil
        }
    }
}

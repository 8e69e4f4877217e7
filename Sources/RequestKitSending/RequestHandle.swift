/// A request started with `call()`: cancel it, or wait until its handlers have run.
///
/// A script must wait for its calls before it ends, or it exits before the handlers run: await
/// ``wait()``, or ``waitForAll()`` for every call in flight. A process that exits with calls still in flight
/// writes one line to standard error naming them (method and URL, secrets redacted).
///
/// ```swift
/// let handle = request.onData { print($0) }.call()
/// handle.cancel()
/// await handle.wait()
/// ```
public struct RequestHandle: Sendable {
    let task: Task<Void, Never>

    /// Starts `operation` in the background, counted among the calls in flight until it returns.
    /// - Parameters:
    ///   - label: Names the call if the process exits before it finishes ("GET http://…", secrets redacted).
    ///   - operation: Sends and runs the handlers.
    package init(label: @escaping @Sendable () -> String, _ operation: @escaping @Sendable () async -> Void) {
        let calls = InFlightCalls.shared
        let id = calls.begin(label)
        task = Task {
            await operation()
            calls.end(id)
        }
    }

    /// Cancels the request; the error handlers receive a `.cancelled` error.
    ///
    /// ```swift
    /// handle.cancel()
    /// ```
    public func cancel() { task.cancel() }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { task.isCancelled }

    /// Waits until the request is done and every handler has run.
    ///
    /// ```swift
    /// await handle.wait()
    /// ```
    public func wait() async { await task.value }

    /// Waits until every call started in the background has finished and run its handlers: `call()` on
    /// requests, groups and chains, and `update` loops (which finish only when cancelled or their trigger ends).
    /// Calls that start meanwhile, from a handler say, are waited for too. Returns early if the waiting task is
    /// cancelled.
    ///
    /// ```swift
    /// Request { Url("http://127.0.0.1:8080/todos/1") }.onJson { print($0.title.string ?? "") }.call()
    /// Request { Url("http://127.0.0.1:8080/todos/2") }.onJson { print($0.title.string ?? "") }.call()
    /// await RequestHandle.waitForAll()
    /// ```
    public static func waitForAll() async {
        await InFlightCalls.shared.waitUntilNoneInFlight()
    }
}

/// A request started with `call()`: cancel it, or wait until its handlers have run.
///
/// ```swift
/// let handle = request.onData { print($0) }.call()
/// handle.cancel()
/// await handle.wait()
/// ```
public struct RequestHandle: Sendable {
    let task: Task<Void, Never>

    package init(task: Task<Void, Never>) {
        self.task = task
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
}

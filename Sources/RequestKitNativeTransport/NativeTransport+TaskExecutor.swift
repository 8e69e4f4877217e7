import Foundation

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension NativeTransport {
    /// The transport's first event loop as a task executor: code run with it preferred continues on the loop's
    /// thread when a response arrives, instead of waking a thread of the cooperative pool.
    ///
    /// Nil when the transport's event loops could not be started.
    ///
    /// ```swift
    /// if let executor = NativeTransport.shared.taskExecutor {
    ///     try await withTaskExecutorPreference(executor) {
    ///         for id in 1...100 { _ = try await Request { Url("http://127.0.0.1:8080/todos/\(id)") }.send() }
    ///     }
    /// }
    /// ```
    public var taskExecutor: (any TaskExecutor)? {
        guard let pool = try? pool() else { return nil }
        return pool.group.loops.first
    }
}

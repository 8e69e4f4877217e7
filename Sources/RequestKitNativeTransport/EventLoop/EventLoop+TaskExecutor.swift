import Foundation

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension EventLoop: TaskExecutor {
    /// Runs `job` on the loop's thread in its next turn, as it runs work handed to it with ``execute(_:)``.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        execute { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
}

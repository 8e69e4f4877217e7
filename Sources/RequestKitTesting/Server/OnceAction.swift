/// An action that runs at most once, however many times and from whichever threads `run` is called.
///
/// ```swift
/// let ending = OnceAction { core.requestEnding() }
/// ending.run()
/// ending.run()   // does nothing
/// ```
final class OnceAction: Sendable {
    private let action: @Sendable () -> Void
    private let hasRun = Locked(false)

    /// Wraps `action`.
    init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
    }

    /// Runs the action the first time; later calls do nothing.
    @Sendable func run() {
        let isFirst = hasRun.withLock { hasRun in
            defer { hasRun = true }
            return !hasRun
        }
        if isFirst { action() }
    }
}

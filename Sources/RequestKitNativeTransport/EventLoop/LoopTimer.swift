/// An action an ``EventLoop`` runs on its thread at a deadline, unless cancelled first.
///
/// Made and cancelled only on the loop's thread:
///
/// ```swift
/// let timer = loop.schedule(at: EventLoop.now() + 1_000_000_000) { print("a second later") }
/// loop.cancel(timer)
/// ```
package final class LoopTimer {
    /// When it fires, in nanoseconds of ``EventLoop/now()``.
    let deadline: UInt64
    /// The action; nil once fired or cancelled.
    var action: (() -> Void)?

    init(deadline: UInt64, action: @escaping () -> Void) {
        self.deadline = deadline
        self.action = action
    }

    /// Whether it has neither fired nor been cancelled.
    package var isPending: Bool { action != nil }
}

/// Who may touch a connection's state: its loop, which owns it, or the awaiting task the loop's connection is lent
/// to while idle, so that the task writes its request (and may read a prompt response) without waking the loop.
/// Nobody ever waits for it: the loop, finding the connection lent, keeps its step in ``deferred`` for when the
/// connection comes back; a task that cannot borrow it hands its request to the loop instead. Both connection kinds
/// use it through ``LoopOwnedConnection``.
///
/// Every change of hands is an atomic exchange with acquire and release ordering, so what one owner wrote is what
/// the next one reads.
///
/// ```swift
/// let ownership = ConnectionOwnership<HTTP1ConnectionStep>()
/// if ownership.lend() {                  // the awaiting task: the loop is not inside
///     // … write the request, look for the response …
///     if ownership.giveBack() { /* the loop left steps: have it run them */ }
/// }
/// if ownership.enterLoop() {             // the loop, for each event
///     // … run the steps in `deferred`, then handle the event …
///     ownership.leaveLoop()
/// }                                      // else: lent; the event waits in `deferred`
/// ```
final class ConnectionOwnership<Step>: @unchecked Sendable {
    // Safe: `deferred` is touched only on the loop's thread, `finished` only by the connection's owner of the
    // moment, whose handoffs go through `word`.

    /// The loop runs a step of the connection.
    private static var loop: UInt64 { 1 }
    /// The connection is lent to an awaiting task.
    private static var lent: UInt64 { 2 }
    /// The loop left steps while the connection was lent: it takes them up before the connection is lent again.
    private static var deferredFlag: UInt64 { 4 }

    private let word = AtomicWord()
    /// The loop's steps that came while the connection was lent, in order (only the loop touches them).
    @exclusivity(unchecked) var deferred: [Step] = []
    /// Jobs ended during a step, resumed once the connection is out of its owner's hands.
    @exclusivity(unchecked) var finished = FinishedJobs()

    /// Called by the loop before a step: true when the loop now holds the connection (then ``leaveLoop()`` after
    /// the step); false when the connection is lent, having noted that the loop has a step waiting.
    func enterLoop() -> Bool {
        while true {
            let value = word.load()
            if value & Self.lent == 0 {
                // Deferred steps, if any, are taken up by this entry: the flag clears.
                if word.compareExchange(expected: value, desired: Self.loop) { return true }
            } else if value & Self.deferredFlag != 0
                || word.compareExchange(expected: value, desired: value | Self.deferredFlag)
            {
                return false
            }
        }
    }

    /// Called by the loop after a step it entered for.
    func leaveLoop() { word.store(0) }

    /// Called by a task: true when the connection is now lent to it (the loop is not inside and has no step
    /// waiting), then ``giveBack()`` when done.
    func lend() -> Bool { word.compareExchange(expected: 0, desired: Self.lent) }

    /// Called by the task it was lent to: whether the loop left steps meanwhile, which it must be asked to run.
    func giveBack() -> Bool {
        while true {
            let value = word.load()
            if word.compareExchange(expected: value, desired: value & Self.deferredFlag) {
                return value & Self.deferredFlag != 0
            }
        }
    }
}

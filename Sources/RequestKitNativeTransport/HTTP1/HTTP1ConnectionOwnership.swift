/// Who may touch an ``HTTP1Connection``'s state: its loop, which owns it, or the awaiting task the loop's
/// connection is lent to while idle, so that the task writes its request (and may read a prompt response) without
/// waking the loop. Nobody ever waits for it: the loop, finding the connection lent, leaves its step for when the
/// connection comes back; a task that cannot borrow it hands its request to the loop instead.
///
/// Every change of hands is an atomic exchange with acquire and release ordering, so what one owner wrote is what
/// the next one reads. ``HTTP2Connection`` is lent the same way, to a task that writes its request on a connection
/// with no stream open.
///
/// ```swift
/// let ownership = HTTP1ConnectionOwnership()
/// if ownership.lend() {                  // the awaiting task: the loop is not inside
///     // … write the request, look for the response …
///     if ownership.giveBack() { /* the loop left steps: have it run them */ }
/// }
/// if ownership.enterLoop() {             // the loop, for each event
///     // … handle it …
///     ownership.leaveLoop()
/// }                                      // else: lent; the event waits in the connection's deferred steps
/// ```
struct HTTP1ConnectionOwnership: ~Copyable, Sendable {
    /// The loop runs a step of the connection.
    private static let loop: UInt64 = 1
    /// The connection is lent to an awaiting task.
    private static let lent: UInt64 = 2
    /// The loop left steps while the connection was lent: it takes them up before the connection is lent again.
    private static let deferred: UInt64 = 4

    private let word = AtomicWord()

    /// Called by the loop before a step: true when the loop now holds the connection (then ``leaveLoop()`` after
    /// the step); false when the connection is lent, having noted that the loop has a step waiting.
    func enterLoop() -> Bool {
        while true {
            let value = word.load()
            if value & Self.lent == 0 {
                // Deferred steps, if any, are taken up by this entry: the flag clears.
                if word.compareExchange(expected: value, desired: Self.loop) { return true }
            } else if value & Self.deferred != 0
                || word.compareExchange(expected: value, desired: value | Self.deferred)
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
            if word.compareExchange(expected: value, desired: value & Self.deferred) {
                return value & Self.deferred != 0
            }
        }
    }
}

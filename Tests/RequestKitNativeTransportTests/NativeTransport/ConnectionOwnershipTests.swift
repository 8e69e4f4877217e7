import RequestKitTestSupport
import Testing

@testable import RequestKitNativeTransport

/// Who holds a connection, handoff by handoff: the loop, or the awaiting task it is lent to. Each table is a script
/// of calls and what each must return; one test runs the two sides on two threads and counts.
@Suite("Connection ownership: the loop and the task it lends an idle connection to")
struct ConnectionOwnershipTests {
    /// One call of a table, with what it must return.
    enum Call {
        case enterLoop(expect: Bool)
        case leaveLoop
        case lend(expect: Bool)
        case giveBack(expectDeferred: Bool)
    }

    private static func run(_ calls: [Call], sourceLocation: SourceLocation = #_sourceLocation) {
        let ownership = ConnectionOwnership<Int>()
        for (index, call) in calls.enumerated() {
            let comment = Comment(rawValue: "call \(index + 1)")
            switch call {
            case .enterLoop(let expected):
                #expect(ownership.enterLoop() == expected, comment, sourceLocation: sourceLocation)
            case .leaveLoop:
                ownership.leaveLoop()
            case .lend(let expected):
                #expect(ownership.lend() == expected, comment, sourceLocation: sourceLocation)
            case .giveBack(let expected):
                #expect(ownership.giveBack() == expected, comment, sourceLocation: sourceLocation)
            }
        }
    }

    @Test("The loop enters and leaves a connection nobody borrowed, step after step")
    func loopAlone() {
        Self.run([.enterLoop(expect: true), .leaveLoop, .enterLoop(expect: true), .leaveLoop])
    }

    @Test("A task cannot borrow the connection while the loop runs a step of it, and can once it left")
    func noLendingDuringALoopStep() {
        Self.run([
            .enterLoop(expect: true), .lend(expect: false), .leaveLoop,
            .lend(expect: true), .giveBack(expectDeferred: false),
        ])
    }

    @Test("A second task cannot borrow a lent connection")
    func oneBorrowerAtATime() {
        Self.run([.lend(expect: true), .lend(expect: false), .giveBack(expectDeferred: false), .lend(expect: true)])
    }

    @Test("The loop's steps while lent wait: the task giving it back learns of them, once")
    func loopStepsWaitForTheConnection() {
        Self.run([
            .lend(expect: true),
            .enterLoop(expect: false), .enterLoop(expect: false),
            .giveBack(expectDeferred: true),
            // Until the loop has taken its steps up, nobody borrows it again…
            .lend(expect: false),
            // …and the loop's next entry takes them up.
            .enterLoop(expect: true), .leaveLoop,
            .lend(expect: true), .giveBack(expectDeferred: false),
        ])
    }

    @Test("A task that borrowed the connection with no step waiting gives it back with none")
    func nothingDeferred() {
        Self.run([.lend(expect: true), .giveBack(expectDeferred: false), .enterLoop(expect: true), .leaveLoop])
    }

    @Test("Two threads, the loop's and a task's, never hold the connection at once")
    func exclusiveUnderContention() async throws {
        let counter = UnguardedCounter()
        let ownership = SharedOwnership()
        let taskDone = SharedWord()
        let rounds = 100_000
        async let loopSide = offThePool {
            var entered = 0
            var attempts = 0
            // The loop keeps trying until the task is done too (on a loaded machine one side may run alone for a
            // while), and a last entry takes up the steps left while the connection was lent.
            while attempts < rounds || taskDone.load() == 0 {
                attempts += 1
                guard ownership.value.enterLoop() else { continue }
                counter.hold(adding: 1)
                entered += 1
                ownership.value.leaveLoop()
            }
            while !ownership.value.enterLoop() {}
            ownership.value.leaveLoop()
            return entered
        }
        async let taskSide = offThePool {
            var lent = 0
            for _ in 0..<rounds {
                guard ownership.value.lend() else { continue }
                counter.hold(adding: 1_000_000)
                lent += 1
                _ = ownership.value.giveBack()
            }
            taskDone.store(1)
            return lent
        }
        let (loopSteps, lentSteps) = try await (loopSide, taskSide)
        #expect(counter.overlaps.load() == 0, "the two sides never held the connection at the same time")
        #expect(counter.value == loopSteps + lentSteps * 1_000_000, "no increment was lost to a simultaneous holder")
    }
}

/// An integer changed with no synchronisation of its own (only the connection's owner touches it), and a count of
/// the times a holder found another one inside.
private final class UnguardedCounter: @unchecked Sendable {
    var value = 0
    private let inside = AtomicWord()
    let overlaps = AtomicWord()

    func hold(adding amount: Int) {
        if inside.add(1) != 1 { overlaps.add(1) }
        for _ in 0..<8 { value += amount / 8 }
        value += amount % 8
        inside.add(UInt64.max)  // wraps: minus one
    }
}

/// A flag two threads share.
private final class SharedWord: Sendable {
    let word = AtomicWord()
    func load() -> UInt64 { word.load() }
    func store(_ value: UInt64) { word.store(value) }
}

/// An ownership two threads share.
private final class SharedOwnership: Sendable {
    let value = ConnectionOwnership<Int>()
}

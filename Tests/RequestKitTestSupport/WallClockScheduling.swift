import Testing

/// Runs each test of a suite at a high priority: for tests that wait on the wall clock (sockets, servers, timers).
///
/// A parallel run starts every test at once, at the default priority. On Linux, Swift's global executor serves
/// each priority with threads of its own, and the tests that compute for long stretches (JSON documents,
/// compression, loops a test turns by hand) can keep the default priority's threads busy for many seconds on a
/// loaded machine. A test that waits on the network would then take its next step only after its own timeouts, or
/// its server's, had fired. At a high priority its steps are taken up as they come, whatever the computing tests do;
/// what the test asserts does not change.
///
/// ```swift
/// @Suite("Keep-alive", .wallClock)
/// struct KeepAliveTests { … }
/// ```
package struct WallClockScheduling: SuiteTrait, TestTrait, TestScoping {
    package var isRecursive: Bool { true }

    /// A scope for each test case, where the test's body runs; none for the suite or the test as a whole.
    package func scopeProvider(for test: Test, testCase: Test.Case?) -> WallClockScheduling? {
        testCase == nil ? nil : self
    }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A child task at a high priority keeps the test's task-local values (the test and its case, for recorded
        // issues) and its cancellation; the group ends only after the child did, so the body never escapes.
        try await withoutActuallyEscaping(function) { body in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask(priority: .high) { try await body() }
                try await group.waitForAll()
            }
        }
    }
}

extension Trait where Self == WallClockScheduling {
    /// Runs each test at a high priority, so that tests computing at the default priority do not delay its steps.
    ///
    /// ```swift
    /// @Suite("Keep-alive", .wallClock)
    /// struct KeepAliveTests { … }
    /// ```
    package static var wallClock: Self { WallClockScheduling() }
}

/// Lets at most a few pieces of work run at once; the rest wait their turn suspended, holding no thread.
///
/// For test helpers that each take a thread of their own for a blocking exchange: many tests starting at once then
/// queue for a turn rather than start a thread each, so the suite's thread count stays bounded. Work run this way must
/// not wait for other work of the same limiter.
///
/// ```swift
/// static let exchanges = AsyncLimiter(limit: 4)
/// let answer = try await exchanges.run { try await offThePool { blockingExchange() } }
/// ```
actor AsyncLimiter {
    private let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// A limiter letting `limit` (at least one) pieces of work run at once.
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `work` once fewer than `limit` others run, waiting for a turn in order of arrival.
    nonisolated func run<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        do {
            let value = try await work()
            await release()
            return value
        } catch {
            await release()
            throw error
        }
    }

    private func acquire() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the turn to the longest waiting work, or frees it.
    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

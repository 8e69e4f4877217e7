import CAtomics

/// A 64-bit word that threads read and change without a lock. It lives in memory of its own, so its address never
/// moves while other threads use it; the type cannot be copied, so that memory has exactly one owner.
///
/// ```swift
/// let word = AtomicWord()
/// if word.compareExchange(expected: 0, desired: 1) { print("this thread set it first") }
/// word.add(2)
/// print(word.load())  // 3
/// ```
struct AtomicWord: ~Copyable, @unchecked Sendable {
    // Safe: the word is only ever read and written through the atomic operations below.
    private let word: UnsafeMutablePointer<UInt64>

    /// A word holding `value`.
    init(_ value: UInt64 = 0) {
        word = .allocate(capacity: 1)
        word.initialize(to: value)
    }

    deinit { word.deallocate() }

    /// The value, with acquire ordering: what the thread that stored it wrote before is visible after.
    func load() -> UInt64 { requestkit_atomic_load(word) }

    /// Stores `value`, with release ordering.
    func store(_ value: UInt64) { requestkit_atomic_store(word, value) }

    /// Sets `desired` when the word holds `expected`, with acquire and release ordering; whether it did.
    func compareExchange(expected: UInt64, desired: UInt64) -> Bool {
        requestkit_atomic_compare_exchange(word, expected, desired)
    }

    /// Adds `amount` (relaxed: for counters read apart from anything else), returning the new value.
    @discardableResult
    func add(_ amount: UInt64) -> UInt64 { requestkit_atomic_add(word, amount) }
}

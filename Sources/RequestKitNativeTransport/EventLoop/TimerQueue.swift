/// The timers of one ``EventLoop``: a binary min-heap by deadline (ties in the order they were scheduled).
/// Cancelled timers stay in the heap until they reach the top, or until they outnumber the live ones, when the heap
/// is rebuilt without them.
///
/// ```swift
/// var queue = TimerQueue()
/// queue.insert(LoopTimer(deadline: 10) { print("fired") })
/// queue.fire(upTo: 10)
/// ```
struct TimerQueue {
    private struct Entry {
        let deadline: UInt64
        let sequence: UInt64
        let timer: LoopTimer

        func precedes(_ other: Entry) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence)
        }
    }

    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0
    private var cancelledCount = 0

    /// The earliest deadline of a pending timer, if any.
    mutating func nextDeadline() -> UInt64? {
        while let first = heap.first, !first.timer.isPending {
            removeFirst()
            cancelledCount = max(0, cancelledCount - 1)
        }
        return heap.first?.deadline
    }

    /// Adds a timer.
    mutating func insert(_ timer: LoopTimer) {
        nextSequence += 1
        heap.append(Entry(deadline: timer.deadline, sequence: nextSequence, timer: timer))
        siftUp(heap.count - 1)
    }

    /// Cancels a pending timer.
    mutating func cancel(_ timer: LoopTimer) {
        guard timer.isPending else { return }
        timer.action = nil
        cancelledCount += 1
        if cancelledCount > 64, cancelledCount * 2 > heap.count {
            let live = heap.filter { $0.timer.isPending }
            heap = []
            cancelledCount = 0
            for entry in live {
                heap.append(entry)
                siftUp(heap.count - 1)
            }
        }
    }

    /// Takes the actions of the pending timers due at `now`, earliest first, marking them fired.
    mutating func due(at now: UInt64) -> [() -> Void] {
        var actions: [() -> Void] = []
        while let first = heap.first, first.deadline <= now {
            removeFirst()
            if let action = first.timer.action {
                first.timer.action = nil
                actions.append(action)
            } else {
                cancelledCount = max(0, cancelledCount - 1)
            }
        }
        return actions
    }

    private mutating func removeFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var index = 0
        while true {
            let left = 2 * index + 1
            let right = left + 1
            var smallest = index
            if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
            if smallest == index { return }
            heap.swapAt(index, smallest)
            index = smallest
        }
    }

    private mutating func siftUp(_ start: Int) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard heap[index].precedes(heap[parent]) else { return }
            heap.swapAt(index, parent)
            index = parent
        }
    }
}

import Foundation
import RequestKitNativeTransport

/// The readiness a loop turned by hand learns: each ``ScriptedByteStream`` it knows is readable while it has
/// something to read and writable while it takes bytes, reported for what the loop watches it for. Descriptors it
/// does not know (a connect still under way) are reported as the test says (``connectable``).
///
/// ```swift
/// let readiness = ManualReadiness()
/// let loop = EventLoop(readiness: readiness, clock: .manual(time))
/// readiness.add(stream)
/// loop.turn()
/// ```
final class ManualReadiness: ReadinessSource, @unchecked Sendable {
    // Safe: `lock` guards every field.
    private let lock = NSLock()
    private var streams: [Int32: ScriptedByteStream] = [:]
    private var interests: [Int32: LoopInterest] = [:]
    private var writableDescriptors: Set<Int32> = []
    private var wakes = 0

    /// How many times another thread woke the loop (work handed to it while it waited).
    var wakeCount: Int { lock.withLock { wakes } }

    /// Makes `stream`'s readiness known.
    func add(_ stream: ScriptedByteStream) { lock.withLock { streams[stream.descriptor] = stream } }

    /// Reports `descriptor` (a socket still connecting) writable from now on: its connect attempt ended.
    func connectable(_ descriptor: Int32) { lock.withLock { _ = writableDescriptors.insert(descriptor) } }

    /// What the loop watches `descriptor` for.
    func interest(of descriptor: Int32) -> LoopInterest { lock.withLock { interests[descriptor] ?? [] } }

    func change(_ descriptor: Int32, from old: LoopInterest, to new: LoopInterest) throws(POSIXError) {
        lock.withLock { interests[descriptor] = new.isEmpty ? nil : new }
    }

    func wait(timeout: UInt64?, _ ready: (_ descriptor: Int32, _ readable: Bool, _ writable: Bool) -> Void) {
        let watched: [(Int32, LoopInterest, ScriptedByteStream?, Bool)] = lock.withLock {
            interests.sorted { $0.key < $1.key }.map {
                ($0.key, $0.value, streams[$0.key], writableDescriptors.contains($0.key))
            }
        }
        for (descriptor, interest, stream, isConnectable) in watched {
            let readable = interest.contains(.readable) && (stream?.isReadable ?? false)
            let writable = interest.contains(.writable) && (stream?.isWritable ?? isConnectable)
            if readable || writable { ready(descriptor, readable, writable) }
        }
    }

    func wake() { lock.withLock { wakes += 1 } }
}

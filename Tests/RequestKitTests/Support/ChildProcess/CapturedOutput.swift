import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes a child of ``ChildProcess`` writes to one ``ChildProcess/Output/captured`` stream, read from the pipe's
/// end as they arrive (so a child that writes much never waits for a full pipe), by a `DispatchIO` channel rather
/// than a thread; the descriptor is closed at the stream's end.
///
/// ```swift
/// let captured = CapturedOutput(reading: readEnd)
/// let bytes = await captured.contents()
/// ```
final class CapturedOutput: @unchecked Sendable {
    // Safe: `bytes`, `isComplete` and `waiters` are only touched while holding `lock`.
    private let lock = NSLock()
    private var bytes = Data()
    private var isComplete = false
    private var waiters: [CheckedContinuation<Data, Never>] = []

    /// Starts reading `descriptor`, which it then owns.
    init(reading descriptor: Int32) {
        let queue = DispatchQueue(label: "RequestKitTests.CapturedOutput")
        let channel = DispatchIO(type: .stream, fileDescriptor: descriptor, queue: queue) { _ in
            _ = close(descriptor)
        }
        channel.read(offset: 0, length: Int.max, queue: queue) { [self] done, data, _ in
            if let data, !data.isEmpty { append(data) }
            if done {
                finish()
                channel.close()
            }
        }
    }

    /// Everything read, once the stream has ended: every process holding the pipe's other end has closed it.
    func contents() async -> Data {
        await withCheckedContinuation { continuation in
            let complete: Data? = lock.withLock {
                if !isComplete { waiters.append(continuation) }
                return isComplete ? bytes : nil
            }
            if let complete { continuation.resume(returning: complete) }
        }
    }

    private func append(_ data: DispatchData) {
        lock.withLock {
            data.enumerateBytes { buffer, _, _ in bytes.append(buffer) }
        }
    }

    private func finish() {
        let (complete, resumed) = lock.withLock {
            isComplete = true
            defer { waiters = [] }
            return (bytes, waiters)
        }
        for waiter in resumed { waiter.resume(returning: complete) }
    }
}

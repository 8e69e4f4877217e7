import Foundation
import RequestKitTestSupport
import Testing

@testable import RequestKitModel

@Suite("A response body stream's buffer")
struct ResponseBodyStreamBufferTests {
    @Test("A chunk the consumer has read is freed, even while the producer keeps the buffer from emptying")
    func readChunksAreFreed() async throws {
        let (body, continuation) = ResponseBodyStream.makeStream(bufferLimit: 1 << 20)
        let freed = CallCounter()
        var iterator = body.makeAsyncIterator()
        #expect(continuation.yield(Self.chunk(0, freed: freed)))
        // The producer stays one chunk ahead, as a transport does when its consumer is slower than the network.
        for index in 1...100 {
            #expect(continuation.yield(Self.chunk(index, freed: freed)))
            let read = try await iterator.next()
            #expect(read?.first == UInt8(index - 1))
        }
        #expect(freed.value == 100)

        continuation.finish()
        let last = try await iterator.next()
        #expect(last?.first == 100)
        #expect(try await iterator.next() == nil)
    }

    @Test("The queue's slots stay bounded when the consumer is always one chunk behind")
    func queueStaysBounded() async throws {
        let buffer = ResponseBodyBuffer(limit: 1 << 20)
        #expect(buffer.append(Data([0])))
        var largest = 0
        for index in 1...10_000 {
            #expect(buffer.append(Data([UInt8(truncatingIfNeeded: index)])))
            let read = try await buffer.next()
            #expect(read == Data([UInt8(truncatingIfNeeded: index - 1)]))
            largest = max(largest, buffer.queueSlots)
        }
        #expect(largest <= 65)
        #expect(buffer.queueSlots <= 65)
    }

    /// 1 KiB of `index`, in memory that counts its release in `freed`.
    private static func chunk(_ index: Int, freed: CallCounter) -> Data {
        let count = 1024
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 1)
        bytes.initializeMemory(as: UInt8.self, repeating: UInt8(index), count: count)
        return Data(
            bytesNoCopy: bytes, count: count,
            deallocator: .custom { pointer, _ in
                pointer.deallocate()
                _ = freed.next()
            })
    }
}

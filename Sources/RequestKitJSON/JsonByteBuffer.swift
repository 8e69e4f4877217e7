/// A growable byte buffer written through a pointer: appending costs a capacity check and a copy, without the
/// uniqueness checks of an array held by a class. Its owner deallocates it.
struct JsonByteBuffer: JsonByteSink {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = UnsafeMutablePointer.allocate(capacity: self.capacity)
    }

    /// The bytes written, as an array.
    var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: base, count: count))
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity {
            grow(toHold: 1)
        }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        if capacity - count < bytes.count {
            grow(toHold: bytes.count)
        }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    private mutating func grow(toHold extra: Int) {
        let larger = max(capacity * 2, count + extra)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = larger
    }

    func deallocate() {
        base.deallocate()
    }
}

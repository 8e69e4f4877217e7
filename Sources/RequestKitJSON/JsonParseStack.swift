/// The values of the arrays and objects a parse has open, so that each container is allocated once, at its exact
/// size, when it closes, instead of growing element by element.
///
/// Elements are pushed as they are parsed; a closing container moves its block (from the count it started at)
/// out into a new array, leaving the stack as it was before the container opened. Used by one parse on one
/// thread: the exclusivity checks of its stored properties are left out.
final class JsonParseStack<Element> {
    @exclusivity(unchecked) private var storage: UnsafeMutablePointer<Element>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private(set) var count = 0

    init(capacity: Int = 64) {
        self.capacity = capacity
        storage = UnsafeMutablePointer.allocate(capacity: capacity)
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    @inline(__always)
    func push(_ element: Element) {
        if count == capacity {
            grow()
        }
        (storage + count).initialize(to: element)
        count += 1
    }

    private func grow() {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = larger
        capacity *= 2
    }

    /// Calls `body` with the elements from `base` on.
    func withElements<Result>(from base: Int, _ body: (UnsafeBufferPointer<Element>) -> Result) -> Result {
        body(UnsafeBufferPointer(start: storage + base, count: count - base))
    }

    /// Removes the elements from `base` on.
    func removeElements(from base: Int) {
        (storage + base).deinitialize(count: count - base)
        count = base
    }

    /// Moves the elements from `base` on into an array of exactly their count.
    func popElements(from base: Int) -> [Element] {
        let moved = count - base
        guard moved > 0 else { return [] }
        // Up to four elements become an array literal, whose storage the compiler allocates with the element
        // type's metadata at hand; a larger array is allocated by the standard library, which looks the type up.
        let first = storage + base
        switch moved {
        case 1:
            count = base
            return [first.move()]
        case 2:
            count = base
            return [first.move(), (first + 1).move()]
        case 3:
            count = base
            return [first.move(), (first + 1).move(), (first + 2).move()]
        case 4:
            count = base
            return [first.move(), (first + 1).move(), (first + 2).move(), (first + 3).move()]
        default:
            break
        }
        let elements = [Element](unsafeUninitializedCapacity: moved) { buffer, initializedCount in
            if let address = buffer.baseAddress {
                address.moveInitialize(from: storage + base, count: moved)
                initializedCount = moved
            }
        }
        count = base
        return elements
    }
}

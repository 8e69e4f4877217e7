/// Gives the memory a burst of requests freed back to the system.
///
/// Thousands of requests in flight at once take memory of their own (each task's frames, each connection's
/// buffers); when they end, glibc's allocator keeps most of the freed pages resident in its arenas, so a process
/// that once ran 10,000 requests at once kept some 290 MB long after. ``ConnectionPool`` calls ``trim()`` a
/// moment after a burst of at least ``burstSize`` requests running at once (on as many HTTP/1.1 connections, or as
/// streams of fewer HTTP/2 connections) has wound down to no connection busy. Other systems' allocators give memory
/// back by themselves: there it does nothing.
///
/// ```swift
/// HeapTrim.trim()
/// ```
enum HeapTrim {
    /// The requests running at once a burst must have reached before the pool trims once its connections are all
    /// released.
    static let burstSize = 256

    /// Returns what the allocator holds free to the system (`malloc_trim(0)` on glibc).
    static func trim() {
        #if canImport(Glibc)
        _ = trimMallocHeap(0)
        #endif
    }
}

#if canImport(Glibc)
/// glibc's `malloc_trim`, which the Glibc module does not export.
@_silgen_name("malloc_trim")
private func trimMallocHeap(_ pad: Int) -> Int32
#endif

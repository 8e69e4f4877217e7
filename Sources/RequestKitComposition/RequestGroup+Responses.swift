import RequestKitModel

extension RequestGroup {
    /// The group's results as they complete, each with the index of its request.
    ///
    /// Iterating starts the requests; ending the loop early, or cancelling the consuming task, cancels the
    /// ones still running. When the group fails fast, the first failure is delivered and then thrown.
    ///
    /// ```swift
    /// for try await (index, result) in group.responses {
    ///     print(index, (try? result.get().statusCode) ?? 0)
    /// }
    /// ```
    public var responses: Responses { Responses(group: self) }

    /// An asynchronous sequence of a group's `(index, result)` pairs, in the order the requests complete.
    ///
    /// ```swift
    /// var iterator = group.responses.makeAsyncIterator()
    /// let first = try await iterator.next()
    /// ```
    public struct Responses: AsyncSequence, Sendable {
        /// A request's index in the group and its validated result.
        public typealias Element = (index: Int, result: Result<Response, RequestError>)

        let group: RequestGroup

        /// Starts the requests and returns an iterator over their results.
        public func makeAsyncIterator() -> Iterator {
            let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
            let group = self.group
            let task = Task {
                let failure = await group.forEachResult(failFast: group.isFailFast) { index, result in
                    continuation.yield((index, result))
                }
                continuation.finish(throwing: failure)
            }
            continuation.onTermination = { _ in task.cancel() }
            return Iterator(base: stream.makeAsyncIterator())
        }

        /// Reads a group's results one at a time.
        ///
        /// ```swift
        /// var iterator = group.responses.makeAsyncIterator()
        /// while let (index, result) = try await iterator.next() { print(index, result) }
        /// ```
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<Element, any Error>.Iterator

            /// The next result to complete, or nil when every request is done.
            ///
            /// - Throws: ``RequestError``: the first failure, after it was delivered, when the group fails fast.
            public mutating func next() async throws -> Element? {
                try await base.next()
            }
        }
    }
}

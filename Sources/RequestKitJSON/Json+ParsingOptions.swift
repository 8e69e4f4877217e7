extension Json {
    /// Settings for parsing.
    ///
    /// ```swift
    /// let json = try Json(parsing: data, options: .init(maximumDepth: 64))
    /// ```
    public struct ParsingOptions: Sendable, Hashable {
        /// How deeply arrays and objects may nest before parsing fails with `.nestingTooDeep`; the limit keeps
        /// hostile input from exhausting the stack. The default is 512. Each level takes a few hundred bytes of
        /// stack while parsing, so a limit far above the default is only safe on threads with large stacks.
        ///
        /// ```swift
        /// Json.ParsingOptions().maximumDepth  // 512
        /// ```
        public var maximumDepth: Int

        /// Creates parsing options.
        ///
        /// ```swift
        /// var options = Json.ParsingOptions()
        /// options.maximumDepth = 64
        /// ```
        public init(maximumDepth: Int = 512) {
            self.maximumDepth = maximumDepth
        }
    }
}

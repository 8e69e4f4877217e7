extension Json {
    /// How to lay out serialized JSON.
    ///
    /// ```swift
    /// json.serializedString(options: [.prettyPrinted, .sortedKeys])
    /// ```
    public struct WritingOptions: OptionSet, Sendable, Hashable {
        /// The raw bits of the set.
        ///
        /// ```swift
        /// Json.WritingOptions.sortedKeys.rawValue  // 2
        /// ```
        public let rawValue: Int

        /// Creates a set from raw bits.
        ///
        /// ```swift
        /// let options = Json.WritingOptions(rawValue: 1)  // .prettyPrinted
        /// ```
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// One member or element per line, indented by two spaces, with a space after each colon.
        ///
        /// ```swift
        /// json.serializedString(options: .prettyPrinted)
        /// ```
        public static let prettyPrinted = WritingOptions(rawValue: 1 << 0)
        /// Object members in ascending order of their keys instead of their stored order.
        ///
        /// ```swift
        /// json.serializedData(options: .sortedKeys)
        /// ```
        public static let sortedKeys = WritingOptions(rawValue: 1 << 1)
    }
}

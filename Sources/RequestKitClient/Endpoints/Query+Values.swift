import Foundation
import RequestKitDSL
import RequestKitModel

extension Query {
    /// Adds one item when the value is present, and nothing when it is nil.
    ///
    /// ```swift
    /// Query("page", ifPresent: page)      // page=2, or nothing
    /// ```
    public init<Value: LosslessStringConvertible>(_ name: String, ifPresent value: Value?) {
        self.init(items: value.map { [QueryItem(name: name, value: $0.description)] } ?? [])
    }

    /// Adds a date written with a strategy; nothing when the date is nil.
    ///
    /// ```swift
    /// Query("since", date: since)                                 // since=2026-11-29T23:47:20Z
    /// Query("since", date: since, strategy: .secondsSince1970)   // since=1795995040
    /// ```
    public init(_ name: String, date: Date?, strategy: QueryDateStrategy = .iso8601) {
        self.init(items: date.map { [QueryItem(name: name, value: strategy.format($0))] } ?? [])
    }

    /// Adds the name once per date.
    ///
    /// ```swift
    /// Query("day", dates: [monday, tuesday], strategy: .formatted("yyyy-MM-dd"))
    /// ```
    public init(_ name: String, dates: [Date], strategy: QueryDateStrategy = .iso8601) {
        self.init(items: dates.map { QueryItem(name: name, value: strategy.format($0)) })
    }
}

import Foundation

/// How a date is written in a query: an open set with the usual forms as static members.
///
/// ```swift
/// Query("from", date: start, strategy: .millisecondsSince1970)
/// extension QueryDateStrategy { static let day = QueryDateStrategy.formatted("yyyy-MM-dd") }
/// ```
public struct QueryDateStrategy: Sendable {
    /// Writes a date.
    public let format: @Sendable (Date) -> String

    /// A strategy from a closure.
    ///
    /// ```swift
    /// let strategy = QueryDateStrategy { date in String(Int(date.timeIntervalSinceReferenceDate)) }
    /// ```
    public init(_ format: @escaping @Sendable (Date) -> String) { self.format = format }

    /// ISO 8601 in UTC with seconds: `2026-11-29T23:47:20Z`.
    public static let iso8601 = QueryDateStrategy { date in
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// Whole seconds since 1970.
    public static let secondsSince1970 = QueryDateStrategy { String(Int64($0.timeIntervalSince1970.rounded(.down))) }

    /// Whole milliseconds since 1970.
    public static let millisecondsSince1970 = QueryDateStrategy {
        String(Int64(($0.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// A `DateFormatter` pattern, in the POSIX locale and UTC unless another time zone is given.
    ///
    /// ```swift
    /// .formatted("yyyy-MM-dd")
    /// ```
    public static func formatted(
        _ pattern: String, timeZone: TimeZone = TimeZone(identifier: "UTC") ?? .current
    )
        -> QueryDateStrategy
    {
        QueryDateStrategy { date in
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = timeZone
            formatter.dateFormat = pattern
            return formatter.string(from: date)
        }
    }
}

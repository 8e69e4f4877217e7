import Foundation
import RequestKit

/// How far a recorded request is from a sent one, for naming the closest entry when none matches: fewer differences
/// first (method, host, path, query, headers, body), then the path nearest by its segments, then the query nearest by
/// its items, then the path nearest by its characters. A request for `/items/99` is nearer `/items/5` (one segment
/// changed, the collection the same) than `/items` (one segment fewer), and nearer `/items/5` than `/users/99`.
///
/// ```swift
/// let distance = ReplayDistance(recorded: recorded, sent: sent, differences: 1)
/// ```
struct ReplayDistance: Comparable {
    /// How many ways the requests differ (``ReplayMatching``'s differences).
    let differences: Int
    /// How many segments one path has more than the other.
    let segmentCountDifference: Int
    /// How many leading segments the paths do not share, counted on the longer path.
    let unsharedLeadingSegments: Int
    /// The segments to insert, delete or change to turn one path into the other.
    let segmentEdits: Int
    /// The query items one request has and the other has not (as a multiset).
    let queryItemDifference: Int
    /// The characters to insert, delete or change to turn one path into the other (up to 256 of each compared).
    let characterEdits: Int

    init(recorded: RecordedRequest, sent: RecordedRequest, differences: Int) {
        self.differences = differences
        let left = Self.segments(of: recorded.url)
        let right = Self.segments(of: sent.url)
        segmentCountDifference = abs(left.count - right.count)
        let shared = zip(left, right).prefix { $0 == $1 }.count
        unsharedLeadingSegments = max(left.count, right.count) - shared
        segmentEdits = Self.editDistance(left, right)
        let leftItems = Self.queryItems(of: recorded.url)
        let rightItems = Self.queryItems(of: sent.url)
        queryItemDifference = Self.multisetDifference(leftItems, rightItems)
        characterEdits = Self.editDistance(
            Array(Self.path(of: recorded.url).utf8.prefix(256)), Array(Self.path(of: sent.url).utf8.prefix(256)))
    }

    static func < (left: ReplayDistance, right: ReplayDistance) -> Bool {
        left.key.lexicographicallyPrecedes(right.key)
    }

    private var key: [Int] {
        [
            differences, segmentCountDifference, unsharedLeadingSegments, segmentEdits, queryItemDifference,
            characterEdits,
        ]
    }

    private static func path(of url: URL) -> String {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
    }

    private static func segments(of url: URL) -> [String] {
        path(of: url).split(separator: "/").map(String.init)
    }

    private static func queryItems(of url: URL) -> [String] {
        (URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQueryItems ?? [])
            .map { "\($0.name)=\($0.value ?? "")" }
    }

    /// The items of `left` not in `right` plus those of `right` not in `left`, counting repeats.
    private static func multisetDifference(_ left: [String], _ right: [String]) -> Int {
        var counts: [String: Int] = [:]
        for item in left { counts[item, default: 0] += 1 }
        for item in right { counts[item, default: 0] -= 1 }
        return counts.values.reduce(0) { $0 + abs($1) }
    }

    /// The Levenshtein distance between two sequences.
    private static func editDistance<Element: Equatable>(_ left: [Element], _ right: [Element]) -> Int {
        guard !left.isEmpty else { return right.count }
        guard !right.isEmpty else { return left.count }
        var previous = Array(0...right.count)
        var current = [Int](repeating: 0, count: right.count + 1)
        for (row, leftElement) in left.enumerated() {
            current[0] = row + 1
            for (column, rightElement) in right.enumerated() {
                let substitution = previous[column] + (leftElement == rightElement ? 0 : 1)
                current[column + 1] = min(previous[column + 1] + 1, current[column] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[right.count]
    }
}

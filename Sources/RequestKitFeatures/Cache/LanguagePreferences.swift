import Foundation

/// The language ranges of an `Accept-Language` field with their weights (RFC 9110 §12.5.4), as a cache compares
/// them: ranges lower-cased, weights in thousandths, in order of weight and then of name, so that `en, de`,
/// `de, en` and ` DE ,en;q=1.0` are the same preferences. Nil when an element or a weight does not parse, and the
/// cache then compares the field's text.
///
/// ```swift
/// let preferences = LanguagePreferences("fr;q=0.5, de")
/// #expect(preferences?.normalized == "de,fr;q=500")
/// #expect(preferences?.favourite == "de")
/// ```
struct LanguagePreferences: Sendable {
    /// The ranges and weights, heaviest first, ties in order of name.
    let ranges: [(range: String, weight: Int)]

    init?(_ value: String) {
        var ranges: [(range: String, weight: Int)] = []
        for element in value.split(separator: ",") {
            let parts = element.split(separator: ";", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let range = parts.first, !range.isEmpty, parts.count <= 2,
                range.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "*") })
            else { return nil }
            var weight = 1000
            if parts.count == 2 {
                guard parts[1].hasPrefix("q="), let parsed = Self.weight(parts[1].dropFirst(2)) else { return nil }
                weight = parsed
            }
            ranges.append((range, weight))
        }
        guard !ranges.isEmpty else { return nil }
        self.ranges = ranges.sorted { $0.weight != $1.weight ? $0.weight > $1.weight : $0.range < $1.range }
    }

    /// The preferences as one text: `range` or `range;q=thousandths`, comma-separated.
    var normalized: String {
        ranges.map { $0.weight == 1000 ? $0.range : "\($0.range);q=\($0.weight)" }.joined(separator: ",")
    }

    /// The one range weighted above every other (and above 0); nil when the heaviest weight is shared.
    var favourite: String? {
        guard let first = ranges.first, first.weight > 0 else { return nil }
        guard ranges.count == 1 || ranges[1].weight < first.weight else { return nil }
        return first.range
    }

    /// A weight (`qvalue`: `0` to `1` with up to three decimals) in thousandths; nil when it is not one.
    static func weight(_ text: Substring) -> Int? {
        let pieces = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = pieces.first, whole == "0" || whole == "1" else { return nil }
        var thousandths = whole == "1" ? 1000 : 0
        if pieces.count == 2 {
            let decimals = pieces[1]
            guard decimals.count <= 3, decimals.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let padded = decimals + String(repeating: "0", count: 3 - decimals.count)
            guard let fraction = Int(padded), whole == "0" || fraction == 0 else { return nil }
            thousandths += fraction
        }
        return thousandths
    }
}

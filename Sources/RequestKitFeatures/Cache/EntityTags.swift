/// Entity-tag comparison (RFC 9110 §8.8.3.2) and the `If-None-Match` list a cache evaluates itself.
///
/// ```swift
/// #expect(EntityTags.weaklyEqual("W/\"1\"", "\"1\""))
/// #expect(EntityTags.list("\"a\", W/\"b\"", contains: "\"b\""))
/// ```
enum EntityTags {
    /// Whether two entity tags are equal ignoring the weak marker: the comparison `If-None-Match` uses.
    static func weaklyEqual(_ first: String, _ second: String) -> Bool {
        opaque(first) == opaque(second)
    }

    /// Whether an `If-None-Match` value (`*` or a comma-separated list) matches `tag`.
    static func list(_ value: String, contains tag: String) -> Bool {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if trimmed == "*" { return true }
        return items(of: trimmed).contains { weaklyEqual($0, tag) }
    }

    /// The entity tags of a list, split at commas outside quotes.
    static func items(of value: String) -> [String] {
        var items: [String] = []
        var current = ""
        var inQuote = false
        for character in value {
            if character == "\"" { inQuote.toggle() }
            if character == ",", !inQuote {
                items.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        items.append(current.trimmingCharacters(in: .whitespaces))
        return items.filter { !$0.isEmpty }
    }

    private static func opaque(_ tag: String) -> Substring {
        let trimmed = tag.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : Substring(trimmed)
    }
}

import Foundation

/// The members of one object by decoded (and, under a key strategy, converted) key, for the objects whose keys
/// cannot be compared as raw bytes: keys with escapes, repeated keys, large objects, or any key strategy.
///
/// As with `JSONDecoder`, the first member with a key wins when keys repeat, before or after conversion.
final class KeyTable {
    /// The distinct keys in document order, with the node of each one's value.
    private(set) var entries: [(key: String, value: Int)] = []
    private var positions: [String: Int] = [:]

    init(object index: Int, decoder: TapeDecoder, path: CodingPathNode) {
        let tape = decoder.tape
        let count = tape.nodes[index].first
        entries.reserveCapacity(count)
        positions.reserveCapacity(count)
        let strategy = decoder.options.keyDecodingStrategy
        let pathKeys: [any CodingKey]
        if case .custom = strategy {
            pathKeys = path.keys
        } else {
            pathKeys = []
        }
        var keyIndex = index + 1
        for _ in 0..<count {
            var key = tape.string(at: keyIndex)
            switch strategy {
            case .useDefaultKeys:
                break
            case .convertFromSnakeCase:
                key = Self.camelCase(fromSnakeCase: key)
            case .custom(let convert):
                key = convert(pathKeys + [JsonCodingKey(stringValue: key)]).stringValue
            @unknown default:
                break
            }
            if positions[key] == nil {
                positions[key] = entries.count
                entries.append((key, keyIndex + 1))
            }
            keyIndex = tape.next(after: keyIndex + 1)
        }
    }

    /// The node of the value for `key`.
    func value(for key: String) -> Int? {
        positions[key].map { entries[$0].value }
    }

    /// `JSONDecoder`'s snake case conversion: words after the first are capitalized and joined, leading and
    /// trailing underscores are kept, a key without inner underscores is left as it is.
    static func camelCase(fromSnakeCase key: String) -> String {
        guard let firstLetter = key.firstIndex(where: { $0 != "_" }) else { return key }
        var lastLetter = key.index(before: key.endIndex)
        while lastLetter > firstLetter && key[lastLetter] == "_" {
            key.formIndex(before: &lastLetter)
        }
        let words = key[firstLetter...lastLetter].split(separator: "_")
        let joined: String
        if words.count == 1 {
            joined = String(key[firstLetter...lastLetter])
        } else {
            joined = ([words[0].lowercased()] + words.dropFirst().map { $0.capitalized }).joined()
        }
        return String(key[..<firstLetter]) + joined + String(key[key.index(after: lastLetter)...])
    }
}

/// A coding path as a linked list that shares its parents, so a nested value costs one node, not an array copy.
indirect enum CodingPathNode {
    case root
    case key(any CodingKey, CodingPathNode)
    case index(Int, CodingPathNode)

    /// The keys from the root, as `DecodingError` and `EncodingError` report them.
    var keys: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while true {
            switch node {
            case .root:
                return keys.reversed()
            case .key(let key, let parent):
                keys.append(key)
                node = parent
            case .index(let index, let parent):
                keys.append(JsonCodingKey(index: index))
                node = parent
            }
        }
    }

    func appending(_ key: (any CodingKey)?) -> CodingPathNode {
        guard let key else { return self }
        return .key(key, self)
    }

    func appending(index: Int) -> CodingPathNode {
        .index(index, self)
    }

    /// The keys with `key` appended.
    func keys(appending key: (any CodingKey)?) -> [any CodingKey] {
        guard let key else { return keys }
        return keys + [key]
    }
}

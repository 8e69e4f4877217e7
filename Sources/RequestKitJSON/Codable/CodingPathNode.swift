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

    /// What a container appends to its path for one of its values: nothing (a single value), a key, or an
    /// array position (named only when a path is reported).
    enum Component {
        case none
        case key(any CodingKey)
        case index(Int)
    }

    func appending(_ component: Component) -> CodingPathNode {
        switch component {
        case .none: self
        case .key(let key): .key(key, self)
        case .index(let index): .index(index, self)
        }
    }

    func appending(_ key: any CodingKey) -> CodingPathNode {
        .key(key, self)
    }

    func appending(index: Int) -> CodingPathNode {
        .index(index, self)
    }

    /// The keys with `component` appended.
    func keys(appending component: Component) -> [any CodingKey] {
        appending(component).keys
    }
}

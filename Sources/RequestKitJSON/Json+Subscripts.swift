extension Json {
    /// The member named `key`, or a missing value when this is not an object or has no such key.
    ///
    /// Setting a member turns a `null`, missing or other non-object value into an object first; setting a missing
    /// value (the result of a failed lookup) removes the member.
    ///
    /// ```swift
    /// var json: Json = nil
    /// json["user"]["name"] = "Ada"  // {"user":{"name":"Ada"}}
    /// json["string"].string         // reaches a key named like an accessor
    /// ```
    public subscript(key: String) -> Json {
        get {
            guard case .object(let object) = storage else { return .missing }
            return object[key] ?? .missing
        }
        set {
            var object: JsonObject
            if case .object(let existing) = storage {
                object = existing
                storage = .null  // releases the old reference so the entries are mutated in place
            } else {
                object = JsonObject()
            }
            if newValue.isMissing {
                object.removeValue(forKey: key)
            } else {
                object.setValue(newValue, forKey: key)
            }
            storage = .object(object)
        }
    }

    /// The element at `index`, or a missing value when this is not an array or the index is out of range.
    ///
    /// Setting an element turns a non-array value into an empty array first, and an index past the end pads
    /// the array with `null`. A negative index is ignored, and so is an index more than 65,536 past the end, so
    /// that a stray index cannot exhaust memory.
    ///
    /// ```swift
    /// var list: Json = [1]
    /// list[2] = 3   // [1,null,3]
    /// list[9].int   // nil
    /// ```
    public subscript(index: Int) -> Json {
        get {
            guard case .array(let elements) = storage, elements.indices.contains(index) else { return .missing }
            return elements[index]
        }
        set {
            guard index >= 0 else { return }
            var elements: [Json]
            if case .array(let existing) = storage {
                elements = existing
                storage = .null  // releases the old reference so the elements are mutated in place
            } else {
                elements = []
            }
            if index >= elements.count {
                guard index - elements.count <= Self.maximumPadding else {
                    storage = .array(elements)
                    return
                }
                elements.append(contentsOf: repeatElement(.null, count: index - elements.count + 1))
            }
            elements[index] = newValue.storedInContainer
            storage = .array(elements)
        }
    }

    /// The most `null` elements that setting an index past the end of an array adds.
    static let maximumPadding = 65_536

    /// The member named `member`: `json.user.name` is `json["user"]["name"]`.
    ///
    /// ```swift
    /// var json: Json = [:]
    /// json.user.name = "Ada"
    /// json.user.name.string  // "Ada"
    /// ```
    public subscript(dynamicMember member: String) -> Json {
        get { self[member] }
        set { self[member] = newValue }
    }

    /// The value at the end of a path of keys and indexes, or a missing value when any step finds nothing.
    ///
    /// Setting creates the objects and arrays along the path, as the key and index subscripts do.
    ///
    /// ```swift
    /// var json: Json = nil
    /// json["items", 0, "id"] = 7  // {"items":[{"id":7}]}
    /// json["items", 0, "id"].int  // 7
    /// ```
    public subscript(path: any JsonPathElement...) -> Json {
        get {
            var current = self
            for element in path {
                switch element.jsonPathComponent {
                case .key(let key): current = current[key]
                case .index(let index): current = current[index]
                }
            }
            return current
        }
        set { setValue(newValue, at: path.map(\.jsonPathComponent)[...]) }
    }

    /// Sets `newValue` at the end of `path`, creating the objects and arrays along the way.
    private mutating func setValue(_ newValue: Json, at path: ArraySlice<JsonPathComponent>) {
        guard let first = path.first else {
            self = newValue
            return
        }
        switch first {
        case .key(let key):
            var child = self[key]
            child.setValue(newValue, at: path.dropFirst())
            self[key] = child
        case .index(let index):
            var child = self[index]
            child.setValue(newValue, at: path.dropFirst())
            self[index] = child
        }
    }
}

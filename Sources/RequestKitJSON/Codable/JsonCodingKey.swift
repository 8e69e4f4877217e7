/// A coding key for object members and array positions: `"Index 3"` for the fourth element, as `JSONDecoder`
/// names positions in coding paths, and `"super"` for a superclass's container.
struct JsonCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    static let `super` = JsonCodingKey(stringValue: "super")
}

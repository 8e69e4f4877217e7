/// A value encoded by `TreeEncoder`, before it is written: scalars as they are, containers as shared boxes
/// that nested containers keep filling until the whole value is encoded.
enum EncodedValue {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsignedInteger(UInt64)
    /// A finite `Double` or `Float` (widened), written as `JSONEncoder` writes it.
    case double(Double)
    case float(Float)
    /// A number's exact text (`Decimal`).
    case numberText(String)
    case string(String)
    case array(EncodedArray)
    case object(EncodedObject)
}

final class EncodedArray {
    var elements: [EncodedValue] = []
}

/// Members in the order they were encoded; encoding a key again replaces its value, as `JSONEncoder`'s
/// dictionary does.
final class EncodedObject {
    var keys: [String] = []
    var values: [EncodedValue] = []

    /// The position of `key`, searched from the end (a repeated key is usually the last one encoded).
    func position(of key: String) -> Int? {
        keys.lastIndex(of: key)
    }

    func set(_ value: EncodedValue, for key: String) {
        if let position = position(of: key) {
            values[position] = value
        } else {
            keys.append(key)
            values.append(value)
        }
    }
}

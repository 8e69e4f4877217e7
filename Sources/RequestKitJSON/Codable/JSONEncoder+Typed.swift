import Foundation

extension JSONEncoder {
    /// Encodes with a ``TypedJsonEncoder`` holding this encoder's strategies, or with this encoder itself when
    /// `TypedJsonEncoder` cannot stand in for it (see ``TypedJsonEncoder/init(matching:)``). `Body(value)`
    /// encodes through here.
    package func encodeWithTypedEncoder<Value: Encodable>(_ value: Value) throws -> Data {
        guard let typed = TypedJsonEncoder(matching: self) else {
            return try encode(value)
        }
        return try typed.encode(value)
    }
}

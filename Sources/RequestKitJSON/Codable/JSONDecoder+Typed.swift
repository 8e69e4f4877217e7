import Foundation

extension JSONDecoder {
    /// Decodes with a ``TypedJsonDecoder`` holding this decoder's strategies, or with this decoder itself when it
    /// asks for something `TypedJsonDecoder` does not do (see ``TypedJsonDecoder/init(matching:)``). Every API
    /// that takes a `JSONDecoder` (`decode`, `value()`, endpoints, `Client`) decodes through here.
    package func decodeWithTypedDecoder<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        guard let typed = TypedJsonDecoder(matching: self) else {
            return try decode(type, from: data)
        }
        return try typed.decode(type, from: data)
    }
}

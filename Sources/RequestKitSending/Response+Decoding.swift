import Foundation
import RequestKitDSL
import RequestKitJSON
import RequestKitModel

extension Response {
    /// Decodes the body as JSON into `type`. An empty body (a `204`, say) decodes into ``NoContent``.
    ///
    /// Decoding runs on ``TypedJsonDecoder`` with the strategies of `decoder`, with the same results and errors
    /// as `decoder` itself and several times faster; a decoder that `TypedJsonDecoder` cannot stand in for (JSON5,
    /// a subclass) decodes on its own.
    ///
    /// ```swift
    /// let todos = try response.decode([Todo].self)
    /// ```
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder whose strategies (keys, dates, data, floats, `userInfo`) to use.
    /// - Returns: The decoded value.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/decoding``, keeping the decoder's error and the body.
    public func decode<T: Decodable>(
        _ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) throws(RequestError)
        -> T
    {
        if body.isEmpty, let empty = (T.self as? any EmptyBodyDecodable.Type)?.emptyValue as? T {
            return empty
        }
        do {
            return try decoder.decodeWithTypedDecoder(T.self, from: body)
        } catch {
            throw RequestError.decoding(error, type: String(describing: T.self), response: self)
        }
    }
}

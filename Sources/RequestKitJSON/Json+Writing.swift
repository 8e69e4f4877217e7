import Foundation

extension Json {
    /// The value as UTF-8 JSON bytes; compact unless asked otherwise. A missing value writes `null`.
    ///
    /// ```swift
    /// let bytes = (["a": 1] as Json).serializedBytes()  // Array(#"{"a":1}"#.utf8)
    /// ```
    ///
    /// - Parameter options: Layout and key order.
    /// - Returns: The UTF-8 bytes of the document.
    public func serializedBytes(options: WritingOptions = []) -> [UInt8] {
        var writer = JsonWriter(options: options)
        writer.write(self)
        return writer.output
    }

    /// The value as UTF-8 JSON data, ready for a request body.
    ///
    /// ```swift
    /// request.httpBody = body.serializedData()
    /// ```
    ///
    /// - Parameter options: Layout and key order.
    /// - Returns: The UTF-8 bytes of the document.
    public func serializedData(options: WritingOptions = []) -> Data {
        Data(serializedBytes(options: options))
    }

    /// The value as JSON text.
    ///
    /// ```swift
    /// let json: Json = ["tags": ["a", "b"]]
    /// json.serializedString(options: .prettyPrinted)
    /// // {
    /// //   "tags": [
    /// //     "a",
    /// //     "b"
    /// //   ]
    /// // }
    /// ```
    ///
    /// - Parameter options: Layout and key order.
    /// - Returns: The document.
    public func serializedString(options: WritingOptions = []) -> String {
        String(decoding: serializedBytes(options: options), as: UTF8.self)
    }
}

extension Json: CustomStringConvertible {
    /// The value as compact JSON text.
    ///
    /// ```swift
    /// print(["id": 1] as Json)  // {"id":1}
    /// ```
    public var description: String {
        serializedString()
    }
}

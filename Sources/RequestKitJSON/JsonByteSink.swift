/// Where `JsonWriter`'s helpers append bytes: a `[UInt8]`, or the `JsonByteBuffer` of the one-pass encoder.
protocol JsonByteSink {
    mutating func append(_ byte: UInt8)
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: JsonByteSink where Element == UInt8 {}

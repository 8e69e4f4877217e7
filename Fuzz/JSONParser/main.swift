// A libFuzzer target for the JSON parser, built with the JSON sources only (see Fuzz/run-json-fuzzer.sh).
//
// Every input is parsed. Whatever the bytes, parsing must return or throw, never crash or hang. When it
// succeeds, the invariants of the round trip are checked: the compact and the pretty serializations must parse
// again, to a value equal to the first (and equal values must hash alike), and serializing that value again must
// give the same bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONParser(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    guard let value = try? Json(parsing: bytes) else { return 0 }
    let compact = value.serializedBytes()
    let pretty = value.serializedBytes(options: [.prettyPrinted, .sortedKeys])
    guard let reparsed = try? Json(parsing: compact) else {
        preconditionFailure("Compact output does not parse: \(String(decoding: compact, as: UTF8.self))")
    }
    guard let reparsedPretty = try? Json(parsing: pretty) else {
        preconditionFailure("Pretty output does not parse: \(String(decoding: pretty, as: UTF8.self))")
    }
    precondition(reparsed == value, "Round trip changed the value: \(String(decoding: compact, as: UTF8.self))")
    precondition(reparsedPretty == value, "Pretty round trip changed the value")
    precondition(reparsed.hashValue == value.hashValue, "Equal values hash differently")
    precondition(reparsed.serializedBytes() == compact, "Serialization is not stable")
    return 0
}

// A libFuzzer target for the JSON parser, the typed decoder and number conversion, built with the JSON sources
// only (see Fuzz/run-json-fuzzer.sh).
//
// Every input is parsed. Whatever the bytes, parsing must return or throw, never crash or hang. When it
// succeeds, the invariants of the round trip are checked: the compact and the pretty serializations must parse
// again, to a value equal to the first (and equal values must hash alike), and serializing that value again must
// give the same bytes. The typed decoder must reject what the parser rejects, for the same reason at the same
// offset, and decode valid documents into `Json` exactly as `JSONDecoder` does (or fail as it does);
// `TypedJsonEncoder` must write valid JSON, the same bytes in one pass as through its tree. An input that reads as a
// number must convert to the double `strtod` gives, or to the exact integer.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONParser(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    checkNumberConversion(bytes)
    let typedResult = Result { try TypedJsonDecoder().decode(Json.self, from: bytes) }
    let typed = try? typedResult.get()
    let value: Json
    do {
        value = try Json(parsing: bytes)
    } catch {
        precondition(typed == nil, "The typed decoder accepts a document the parser rejects")
        // The typed decoder's tape checks UTF-8 itself, the parser through the standard library: both must stop at
        // the same byte for the same reason.
        if case .failure(DecodingError.dataCorrupted(let context)) = typedResult,
            let tapeError = context.underlyingError as? JsonParsingError
        {
            precondition(
                tapeError.reason == error.reason && tapeError.offset == error.offset,
                "The typed decoder and the parser reject at different places: \(tapeError) and \(error)")
        }
        return 0
    }
    // Both fail alike on a number that no type holds (such as 1e400, beyond Double and Decimal).
    let foundation = try? JSONDecoder().decode(Json.self, from: Data(bytes))
    precondition(typed == foundation, "The typed decoder and JSONDecoder disagree")
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
    if let typed, let encoded = try? TypedJsonEncoder().encode(typed) {
        precondition((try? Json(parsing: encoded)) != nil, "TypedJsonEncoder wrote invalid JSON")
        // Written in one pass (unless that pass hands over to the tree), the bytes must be the tree's.
        let tree = try? TypedJsonEncoder().treeEncodedBytes(typed)
        precondition(tree.map { Data($0) } == encoded, "TypedJsonEncoder and its tree disagree")
        if let direct = TypedJsonEncoder().directlyEncodedBytes(typed) {
            precondition(direct == tree, "The direct encoder and the tree disagree")
        }
    }
    return 0
}

/// When the input is a JSON number with a fraction or an exponent, its double must be the one `strtod` gives; an
/// integer that fits `Int64` must be that integer.
private func checkNumberConversion(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count <= 64, bytes.allSatisfy({ (0x2B...0x65).contains($0) }) else { return }
    let text = String(decoding: bytes, as: UTF8.self)
    guard text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else {
        if let integer = Int64(text), let parsed = try? Json(parsing: text) {
            precondition(parsed.int64 == integer, "\(text) reads as \(parsed), not \(integer)")
        }
        return
    }
    guard let parsed = try? Json(parsing: text), let reference = Double(text) else { return }
    if let double = parsed.double {
        precondition(
            double.bitPattern == reference.bitPattern, "\(text) converts to \(double), strtod says \(reference)")
    } else {
        // Kept as text: only for a number that overflows, or underflows to zero without being zero.
        precondition(!reference.isFinite || reference == 0, "\(text) was not converted; strtod says \(reference)")
    }
}

import Foundation
import RequestKitJSON
import Testing

@Suite("Writing JSON")
struct JsonWritingTests {
    @Test("Literals build values in literal order, and description is compact JSON")
    func buildsFromLiterals() {
        let body: Json = ["title": "foo", "userId": 1, "tags": ["a"], "draft": nil, "ratio": 0.5, "ok": true]
        #expect(body.description == #"{"title":"foo","userId":1,"tags":["a"],"draft":null,"ratio":0.5,"ok":true}"#)
    }

    @Test("A repeated key in a dictionary literal keeps its first position and last value")
    func resolvesDuplicateLiteralKeys() {
        let json: Json = ["a": 1, "b": 2, "a": 3]
        #expect(json.description == #"{"a":3,"b":2}"#)
    }

    @Test("Pretty printing indents by two spaces and writes empty containers inline")
    func printsPrettily() {
        let json: Json = ["b": [1, [:], []], "a": ["c": nil]]
        #expect(
            json.serializedString(options: .prettyPrinted) == """
                {
                  "b": [
                    1,
                    {},
                    []
                  ],
                  "a": {
                    "c": null
                  }
                }
                """)
    }

    @Test("Sorted keys order members at every level")
    func sortsKeys() {
        let json: Json = ["b": 1, "a": ["z": 1, "y": 2]]
        #expect(json.serializedString(options: .sortedKeys) == #"{"a":{"y":2,"z":1},"b":1}"#)
    }

    @Test("Strings escape quotes, backslashes and control characters, and keep slashes and Unicode as they are")
    func escapesStrings() {
        let json = Json(string: "q\" b\\ /\n\r\t\u{08}\u{0C}\u{00}\u{1F}é😀\u{7F}")
        #expect(json.serializedString() == #""q\" b\\ /\n\r\t\b\f\u0000\u001fé😀\#u{7F}""#)
    }

    @Test("Every string survives a write-and-parse round trip")
    func roundTripsStrings() throws {
        let strings = ["", "plain", "\u{0}\u{1}\u{2}…\u{1F}", "\"\\\"", "日本語 😀", String(repeating: "ab\"", count: 100)]
        for string in strings {
            #expect(try Json(parsing: Json(string: string).serializedBytes()).string == string)
        }
    }

    @Test("Data, String and bytes hold the same serialization; a missing value writes null")
    func serializesToEveryOutputType() {
        let json: Json = ["a": [1, 2]]
        #expect(json.serializedData() == Data(#"{"a":[1,2]}"#.utf8))
        #expect(json.serializedBytes() == Array(#"{"a":[1,2]}"#.utf8))
        #expect(json.missing.serializedString() == "null")
    }

    @Test("Parsed documents serialize back in their key order")
    func keepsParsedOrder() throws {
        let text = #"{"z":{"b":[true,false,null],"a":"x"},"y":-1.25,"x":[]}"#
        #expect(try Json(parsing: text).serializedString() == text)
    }

    @Test("Values built from Swift values use the matching kinds")
    func buildsFromSwiftValues() {
        #expect(Json(true) == true)
        #expect(Json(string: "s").string == "s")
        #expect(Json(Int8(-3)).int == -3)
        #expect(Json([1, "a"]).serializedString() == #"[1,"a"]"#)
        #expect(Json(["b": 1, "a": 2]).serializedString() == #"{"a":2,"b":1}"#)
        #expect(Json(entries: [(key: "k", value: 1)]).k.int == 1)
        #expect(Json.null.isNull)
    }

    @Test("Objects compare and hash regardless of member order")
    func comparesObjectsWithoutOrder() throws {
        let left = try Json(parsing: #"{"a":1,"b":[1,2]}"#)
        let right = try Json(parsing: #"{"b":[1,2],"a":1}"#)
        #expect(left == right)
        #expect(left.hashValue == right.hashValue)
        #expect(left != (try Json(parsing: #"{"a":1,"b":[2,1]}"#)))
        #expect(left != (try Json(parsing: #"{"a":1}"#)))
    }
}

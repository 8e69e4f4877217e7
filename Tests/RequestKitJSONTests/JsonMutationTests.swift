import RequestKitJSON
import Testing

@Suite("Changing JSON values")
struct JsonMutationTests {
    @Test("Setting a dynamic member creates the intermediate objects on null")
    func createsIntermediateObjects() {
        var json: Json = nil
        json.user.name = Json(string: "x")
        json.user.address.city = Json(string: "Paris")
        #expect(json.serializedString() == #"{"user":{"name":"x","address":{"city":"Paris"}}}"#)
    }

    @Test("Setting an existing key replaces its value in place; a new key goes last")
    func replacesValuesInPlace() {
        var json: Json = ["a": 1, "b": 2]
        json.a = Json(string: "one")
        json.c = true
        #expect(json.serializedString() == #"{"a":"one","b":2,"c":true}"#)
    }

    @Test("Setting a key on a value of another kind replaces it with an object")
    func replacesOtherKindsWithObjects() {
        var json: Json = ["count": 3]
        json.count.total = 4
        #expect(json.serializedString() == #"{"count":{"total":4}}"#)
    }

    @Test("Assigning a missing value removes the key")
    func removesKeysWithMissingValues() {
        var json: Json = ["a": 1, "b": 2]
        json.a = json.nothing
        #expect(json.serializedString() == #"{"b":2}"#)
    }

    @Test("Setting an index past the end pads with null; a negative index is ignored")
    func padsArrays() {
        var json: Json = [1]
        json[3] = 4
        json[-1] = 9
        #expect(json.serializedString() == "[1,null,null,4]")
        var empty: Json = nil
        empty[0] = Json(string: "first")
        #expect(empty.serializedString() == #"["first"]"#)
    }

    @Test("An index more than 65,536 past the end is ignored instead of exhausting memory")
    func ignoresFarIndexes() {
        var json: Json = [1]
        json[Int.max] = 2
        json[65_538] = 3
        #expect(json.serializedString() == "[1]")
        json[65_537] = 4
        #expect(json.array?.count == 65_538)
        #expect(json[65_537].int == 4)
        #expect(json[65_536].isNull)
    }

    @Test("Setting through a path creates arrays and objects along the way")
    func setsPaths() {
        var json: Json = nil
        json["items", 1, "id"] = 7
        json["items", 0, "tags", 0] = Json(string: "a")
        #expect(json.serializedString() == #"{"items":[{"tags":["a"]},{"id":7}]}"#)
        #expect(json["items", 1, "id"].int == 7)
    }

    @Test("A value is a value: changing a copy leaves the original alone")
    func hasValueSemantics() {
        let original: Json = ["list": [1, 2]]
        var copy = original
        copy.list[0] = 10
        #expect(original.list[0].int == 1)
        #expect(copy.list[0].int == 10)
    }

    @Test("Large objects stay consistent through many insertions, replacements and removals")
    func changesLargeObjects() {
        var json: Json = [:]
        for index in 0..<200 {
            json["key\(index)"] = Json(index)
        }
        for index in stride(from: 0, to: 200, by: 2) {
            json["key\(index)"] = json.nothing
        }
        json.key1 = Json(string: "one")
        #expect(json.entries?.count == 100)
        #expect(json.entries?.first?.key == "key1")
        #expect(json.key1.string == "one")
        #expect(json.key2.isMissing)
        #expect(json.key199.int == 199)
        #expect(json.entries?.last?.key == "key199")
    }
}

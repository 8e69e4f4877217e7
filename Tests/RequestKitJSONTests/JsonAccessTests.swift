import RequestKitJSON
import Testing

@Suite("Reading JSON values")
struct JsonAccessTests {
    private let document: Json

    init() throws {
        document = try Json(
            parsing: #"""
                {"user": {"name": "Ada", "langs": ["en", "fr"], "age": 36},
                 "items": [{"id": 7}, {"id": 8}],
                 "draft": null,
                 "string": "a key named like an accessor"}
                """#)
    }

    @Test("Dynamic members, key subscripts and index subscripts reach the same values")
    func readsNestedValues() {
        #expect(document.user.name.string == "Ada")
        #expect(document["user"]["name"].string == "Ada")
        #expect(document.user.langs[1].string == "fr")
        #expect(document.items[0].id.int == 7)
    }

    @Test("A path of keys and indexes reads a nested value")
    func readsPaths() {
        #expect(document["items", 1, "id"].int == 8)
        #expect(document["user", "langs", 0].string == "en")
        #expect(document[JsonPathComponent.key("user"), JsonPathComponent.key("age")].int == 36)
        #expect(document["items", 5, "id"].isMissing)
    }

    @Test("Missing keys, wrong kinds and out-of-range indexes give a missing value; chains never crash")
    func answersMissingSafely() {
        #expect(document.nope.isMissing)
        #expect(document.nope.deeper[3].still.string == nil)
        #expect(document.user.name.first.isMissing)
        #expect(document.items[2].isMissing)
        #expect(document.items[-1].isMissing)
        #expect(document.user[0].isMissing)
        #expect(document[Int.max].isMissing)
    }

    @Test("null is present and null; a missing value is neither present nor null")
    func distinguishesMissingFromNull() {
        #expect(document.draft.isNull)
        #expect(!document.draft.isMissing)
        #expect(!document.absent.isNull)
        #expect(document.absent.isMissing)
        #expect(document.draft != document.absent)
    }

    @Test("Accessors answer only for their own kind")
    func readsAccessorsStrictly() {
        let name = document.user.name
        #expect(name.string == "Ada")
        #expect(name.int == nil)
        #expect(name.bool == nil)
        #expect(name.array == nil)
        #expect(name.object == nil)
        #expect(document.user.langs == ["en", "fr"])
        #expect(document.user.object?.keys.sorted() == ["age", "langs", "name"])
        #expect(document.user.entries?.map(\.key) == ["name", "langs", "age"])
    }

    @Test("A key named like an accessor is reached with the key subscript")
    func readsKeysNamedLikeAccessors() {
        #expect(document.string == nil)
        #expect(document["string"].string == "a key named like an accessor")
    }

    @Test("Accessors on a missing value all answer nil")
    func readsNothingFromMissing() {
        let missing = document.absent
        #expect(missing.string == nil)
        #expect(missing.int == nil)
        #expect(missing.int64 == nil)
        #expect(missing.uint64 == nil)
        #expect(missing.double == nil)
        #expect(missing.bool == nil)
        #expect(missing.array == nil)
        #expect(missing.object == nil)
        #expect(missing.entries == nil)
    }

    @Test("Lookups in large objects find every key")
    func readsLargeObjects() throws {
        let members = (0..<100).map { #""key\#($0)":\#($0)"# }.joined(separator: ",")
        let json = try Json(parsing: "{\(members)}")
        for index in 0..<100 {
            #expect(json["key\(index)"].int == index)
        }
        #expect(json.key100.isMissing)
    }
}

import Foundation
import RequestKitJSON
import Testing

private struct Event: Codable, Equatable {
    let name: String
    let payload: Json
}

private struct User: Decodable, Equatable {
    let name: String
    let langs: [String]
}

@Suite("JSON and Codable")
struct JsonCodableTests {
    @Test("Json nests inside a Codable model and round-trips through JSONEncoder and JSONDecoder")
    func nestsInsideModels() throws {
        let event = Event(name: "signup", payload: ["id": 9_007_199_254_740_993, "tags": ["a", nil], "score": 0.5])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(event)
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"name":"signup","payload":{"id":9007199254740993,"score":0.5,"tags":["a",null]}}"#)
        let decoded = try JSONDecoder().decode(Event.self, from: data)
        #expect(decoded == event)
        #expect(decoded.payload.id.int64 == 9_007_199_254_740_993)
    }

    @Test("JSONDecoder decodes every kind into Json, keeping integers exact")
    func decodesEveryKind() throws {
        let text = #"[null,true,-9223372036854775808,18446744073709551615,1.5,"s",{"k":[]}]"#
        let json = try JSONDecoder().decode(Json.self, from: Data(text.utf8))
        #expect(json == (try Json(parsing: text)))
        #expect(json[2].int64 == Int64.min)
        #expect(json[3].uint64 == UInt64.max)
        #expect(json[1].bool == true)
    }

    @Test("JSONEncoder writes numbers beyond Int64 exactly")
    func encodesBigNumbersExactly() throws {
        let json = try Json(parsing: "[18446744073709551615,123456789012345678901234567890]")
        let data = try JSONEncoder().encode(json)
        #expect(String(decoding: data, as: UTF8.self) == "[18446744073709551615,123456789012345678901234567890]")
    }

    @Test("decode(_:) turns a value into any Decodable type")
    func decodesModels() throws {
        let json = try Json(parsing: #"{"user": {"name": "Ada", "langs": ["en"]}}"#)
        #expect(try json.user.decode(User.self) == User(name: "Ada", langs: ["en"]))
        #expect(try json.user.langs.decode([String].self) == ["en"])
        #expect(throws: DecodingError.self) { try json.user.name.decode(User.self) }
    }

    @Test("decode(_:decoder:) honours the decoder's strategies")
    func usesDecoderStrategies() throws {
        struct Profile: Decodable, Equatable { let firstName: String }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let json: Json = ["first_name": "Ada"]
        #expect(try json.decode(Profile.self, decoder: decoder) == Profile(firstName: "Ada"))
    }
}

import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Small things a newcomer hit", .wallClock)
struct NewcomerFixesTests {
    struct Profile: Decodable, Sendable {
        let name: String
    }

    struct GetProfile: Endpoint {
        typealias Output = Profile
        let userID: String
        var body: any RequestComponent {
            Path(template: "/profile/{user_id}", ["user_id": userID])
            Header.Accept(.json)
        }
    }

    @Test("client.urlRequest(for:) and client.cURL(for:) take an Endpoint, and show what send sends")
    func endpointInspection() async throws {
        let mock = MockTransport { _ in Response(status: .ok, body: Data(#"{"name":"Ann"}"#.utf8)) }
        let client = Client(baseURL: URL(string: "http://api.test/v1/")!) {
            Using(mock)
            Header.Authorization(.bearer("SECRET-TOKEN"))
        }
        let endpoint = GetProfile(userID: "ann lee")

        let built = try client.urlRequest(for: endpoint)
        #expect(built.url?.absoluteString == "http://api.test/v1/profile/ann%20lee")
        #expect(built.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(built.value(forHTTPHeaderField: "Authorization") == "Bearer SECRET-TOKEN")
        #expect(
            client.cURL(for: endpoint)
                == "curl 'http://api.test/v1/profile/ann%20lee' -H 'Accept: application/json' "
                + "-H 'Authorization: <redacted>'")

        #expect(try await client.send(endpoint).name == "Ann")
        let sent = try #require(mock.requests.first)
        #expect(sent.url == built.url)
        #expect(sent.value(forHTTPHeaderField: "Accept") == built.value(forHTTPHeaderField: "Accept"))
        #expect(sent.value(forHTTPHeaderField: "Authorization") == built.value(forHTTPHeaderField: "Authorization"))
    }

    @Test("decode(_:) of a body that is not JSON says where, as json() does")
    func decodeKeepsLineAndColumn() async throws {
        let mock = MockTransport { _ in Response(status: .ok, body: Data("{\n  \"name\": \"Ann\",\n]".utf8)) }
        let request = Request {
            Url("http://api.test/profile"); Using(mock)
        }
        let decoding = try await #require(throws: RequestError.self) { try await request.decode(Profile.self) }
        let parsing = try await #require(throws: RequestError.self) { try await request.json() }
        let place = "Expected a string key but found ']' at line 3, column 1 (byte offset 19)"
        #expect(decoding.kind == .decoding)
        #expect(decoding.description.contains("Could not decode Profile for GET http://api.test/profile: "))
        #expect(decoding.description.contains(place))
        #expect(parsing.description.contains(place))
        let where1 = try #require(decoding.description.range(of: ": ")?.upperBound)
        let where2 = try #require(parsing.description.range(of: ": ")?.upperBound)
        #expect(decoding.description[where1...] == parsing.description[where2...])
    }

    @Test("A custom Validate failure states its reason once")
    func validationReasonOnce() async throws {
        struct EmptyBody: Error, CustomStringConvertible {
            var description: String { "the body was empty" }
        }
        let mock = MockTransport { _ in Response(status: .ok) }
        let thrown = try await #require(throws: RequestError.self) {
            try await Request {
                Url("http://api.test/a"); Using(mock)
                Validate(throwing: { response in if response.body.isEmpty { throw EmptyBody() } })
            }.data()
        }
        #expect(thrown.description == "Response failed validation for GET http://api.test/a (the body was empty)")
        #expect(thrown.underlyingError is EmptyBody)

        let refused = try await #require(throws: RequestError.self) {
            try await Request {
                Url("http://api.test/b"); Using(mock); Validate { _ in false }
            }.data()
        }
        #expect(
            refused.description
                == "Response failed validation for GET http://api.test/b (a custom check rejected the response (200 OK))"
        )
    }
}

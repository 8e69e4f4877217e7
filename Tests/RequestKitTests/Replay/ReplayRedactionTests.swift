import Foundation
import RequestKit
import Testing

@testable import RequestKitTesting

@Suite("Recording: secrets are redacted before anything reaches the disk")
struct ReplayRedactionTests {
    static let secrets = [
        "sess-secret-1", "resp-secret-2", "resp-secret-3", "resp-secret-4", "url-secret-5", "query-secret-6",
        "hdr-secret-7", "hdr-secret-8", "cookie-secret-9", "cookie-secret-10", "body-secret-11", "body-secret-12",
        "form-secret-13", "rule-secret-14",
    ]

    private static func makeServer() throws -> TestServer {
        let server = try TestServer()
        server.route("/secret") { _ in
            var response = TestResponse.json(
                Data(#"{"access_token":"resp-secret-3","nested":{"password":"resp-secret-4"},"ok":true}"#.utf8))
            response.headers.append((name: "Set-Cookie", value: "session=sess-secret-1; Path=/; HttpOnly"))
            response.headers.append((name: "X-Auth-Token", value: "resp-secret-2"))
            response.headers.append((name: "X-Session-Note", value: "rule-secret-14"))
            return response
        }
        return server
    }

    /// Sends a JSON request and a form request carrying every kind of secret.
    private static func sendSecrets(to server: TestServer, through transport: any Transport) async throws -> [Response]
    {
        let json = try await Request {
            Url(server.url("/secret?api_key=query-secret-6&page=2")); Method(.post); Using(transport)
            Header.Authorization(.bearer("hdr-secret-7"))
            Header.Any("X-API-Key", "hdr-secret-8")
            Header.Any("Cookie", "a=cookie-secret-9; b=cookie-secret-10")
            Body(json: ["user": "ada", "password": "body-secret-11", "deep": [["token": "body-secret-12"]]])
        }.send()
        var withPassword = URLComponents(url: server.url("/secret"), resolvingAgainstBaseURL: false)
        withPassword?.user = "ada"
        withPassword?.password = "url-secret-5"
        let formURL = try #require(withPassword?.url)
        let form = try await Request {
            Url(formURL); Method(.post); Using(transport)
            Header.ContentType(.formURLEncoded)
            Body("name=ada&secret=form-secret-13")
        }.send()
        return [json, form]
    }

    private static var configuration: RecordingTransport.Configuration {
        var configuration = RecordingTransport.Configuration()
        configuration.redaction.rules.append { _, response in
            if response?.headers["X-Session-Note"] != nil { response?.headers.set("X-Session-Note", "<note>") }
        }
        return configuration
    }

    @Test("A recording with secrets in every place holds none of them, and the placeholders match on replay")
    func noSecretOnDisk() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let server = try Self.makeServer()
        let recorder = try folder.transport("secrets.har", mode: .recordAll, configuration: Self.configuration)
        let live = try await Self.sendSecrets(to: server, through: recorder)
        #expect(live.map(\.statusCode) == [200, 200])
        #expect(server.requests.first?.header("X-API-Key") == "hdr-secret-8")
        let onDisk = try folder.allText()
        for secret in Self.secrets {
            #expect(!onDisk.contains(secret), "\(secret) reached the cassette")
        }
        let base64 = Data("ada:url-secret-5".utf8).base64EncodedString()
        #expect(!onDisk.contains(base64))
        #expect(onDisk.contains(#""value" : "a=<redacted>; b=<redacted>""#))
        #expect(onDisk.contains(#""value" : "session=<redacted>; Path=/; HttpOnly""#))
        #expect(onDisk.contains("api_key=%3Credacted%3E&page=2"))
        await server.shutdown()

        let player = try folder.transport("secrets.har", mode: .replayOnly, configuration: Self.configuration)
        let replayed = try await Self.sendSecrets(to: server, through: player)
        let json = try replayed[0].json()
        #expect(json.access_token.string == "<redacted>")
        #expect(json.nested.password.string == "<redacted>")
        #expect(json.ok.bool == true)
        #expect(replayed[0].headers["X-Auth-Token"] == "<redacted>")
        #expect(replayed[0].headers["Content-Length"] == String(replayed[0].body.count))
        #expect(replayed[0].headers["X-Session-Note"] == "<note>")
    }

    @Test("A URL loses its password and sensitive query values; other items keep theirs")
    func url() throws {
        let redaction = ReplayRedaction()
        let url = try #require(URL(string: "https://ada:pw@api.test/a?token=t1&page=2&Signature=s"))
        #expect(
            redaction.redacted(url).absoluteString
                == "https://ada:%3Credacted%3E@api.test/a?token=%3Credacted%3E&page=2&Signature=%3Credacted%3E")
        let plain = try #require(URL(string: "https://api.test/a?page=2"))
        #expect(redaction.redacted(plain) == plain)
    }

    @Test("JSON members are redacted at any depth; a body with nothing to redact keeps its exact bytes")
    func jsonBodies() {
        let redaction = ReplayRedaction(sensitiveData: SensitiveData(queryNames: ["pin"]))
        let body = Data(#"{"a":[{"PIN":"1"}],"key":null,"b":{"secret":{"x":1}}}"#.utf8)
        #expect(
            String(decoding: redaction.redactedBody(body, contentType: "application/json"), as: UTF8.self)
                == #"{"a":[{"PIN":"<redacted>"}],"key":null,"b":{"secret":"<redacted>"}}"#)
        let untouched = Data("{ \"page\" : 2 }".utf8)
        #expect(redaction.redactedBody(untouched, contentType: "application/json") == untouched)
        let text = Data("password=1".utf8)
        #expect(redaction.redactedBody(text, contentType: "text/plain") == text)
    }

    @Test("A secret echoed elsewhere in the exchange is replaced there too, unless it is shorter than 8 characters")
    func echoedSecrets() throws {
        let url = try #require(URL(string: "https://api.test/echo?api_key=k-12345678&pin=1"))
        let request = RecordedRequest(
            method: "POST", url: url, headers: ["Authorization": "Bearer tok-abcdefgh", "X-Trace": "tok-abcdefgh"],
            body: Data(#"{"password":"2","note":"tok-abcdefgh"}"#.utf8))
        let response = RecordedResponse(
            status: 200, headers: ["Content-Type": "application/json", "X-Echo": "k-12345678"],
            body: Data(
                #"{"headers":{"Authorization":"Bearer tok-abcdefgh"},"url":"/echo?api_key=k-12345678","n":2}"#.utf8))
        let redacted = ReplayRedaction().redacted(request, response)
        #expect(redacted.request.headers["X-Trace"] == "<redacted>")
        #expect(
            String(decoding: redacted.request.body, as: UTF8.self) == #"{"password":"<redacted>","note":"<redacted>"}"#)
        #expect(redacted.response?.headers["X-Echo"] == "<redacted>")
        #expect(
            redacted.response.map { String(decoding: $0.body, as: UTF8.self) }
                == #"{"headers":{"Authorization":"<redacted>"},"url":"/echo?api_key=<redacted>","n":2}"#)
    }
}

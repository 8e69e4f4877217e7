import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitTestSupport
import Testing

@testable import RequestKitTesting

@Suite("Recording: secrets are redacted before anything reaches the disk", .wallClock)
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
    @Test("A multipart field named like a secret is redacted in the cassette; the other fields keep their values")
    func multipartFields() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let base = MockTransport { _ in Response(status: .ok, body: Data("ok".utf8)) }
        let recorder = try folder.transport("multipart.har", mode: .recordAll, base: base)
        _ = try await Request {
            Url("http://api.test/login"); Method(.post); Using(recorder)
            Form {
                Field("user", "ada")
                Field("password", "multipart-secret-1")
                Field("refresh_token", "rt")
            }
        }.send()
        let sent = String(decoding: try #require(base.requests.first?.httpBody), as: UTF8.self)
        #expect(sent.contains("multipart-secret-1"))
        let onDisk = try folder.allText()
        #expect(!onDisk.contains("multipart-secret-1"))
        #expect(onDisk.contains(#"name=\"password\"\r\n\r\n<redacted>\r\n"#))
        #expect(onDisk.contains(#"name=\"refresh_token\"\r\n\r\n<redacted>\r\n"#))
        #expect(onDisk.contains(#"name=\"user\"\r\n\r\nada\r\n"#))
    }

    @Test("A secret echoed in a body that is not UTF-8 is replaced in its bytes, not stored base64-encoded")
    func binaryEcho() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let secret = "binary-echo-secret-1"
        let utf16 = Data(secret.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] })
        let echoed = Data([0xFF, 0xFE, 0x00, 0x80]) + Data("token:\(secret);".utf8) + utf16 + Data([0xC3, 0x28])
        let base = MockTransport { _ in
            Response(status: .ok, headers: ["Content-Type": "application/octet-stream"], body: echoed)
        }
        let recorder = try folder.transport("binary.har", mode: .recordAll, base: base)
        let live = try await Request {
            Url("http://api.test/blob"); Using(recorder); Header.Authorization(.bearer(secret))
        }.send()
        #expect(live.body == echoed)
        let document = try HARDocument.decoded(from: Data(contentsOf: folder.cassette("binary.har")))
        let content = try #require(document.log.entries.first?.response.content)
        #expect(content.encoding == "base64")
        let stored = try #require(Data(base64Encoded: content.text ?? ""))
        #expect(stored.range(of: Data(secret.utf8)) == nil)
        #expect(stored.range(of: utf16) == nil)
        let placeholder16 = Data(
            "<redacted>".utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] })
        #expect(
            stored
                == Data([0xFF, 0xFE, 0x00, 0x80]) + Data("token:<redacted>;".utf8) + placeholder16 + Data([0xC3, 0x28]))
        #expect(document.log.entries.first?.response.content.size == stored.count)
    }

    @Test("refresh_token, id_token, client_secret and vendor token headers never reach the cassette by default")
    func commonCredentialNames() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let base = MockTransport { _ in
            Response(
                status: .ok,
                headers: ["Content-Type": "application/json", "X-Vendor-Token": "vendor-secret-3"],
                body: Data(
                    #"{"access_token":"at-secret-1","refresh_token":"rt-secret-2","id_token":"idt-secret-4","author":"Ann","max_tokens":5}"#
                        .utf8))
        }
        let recorder = try folder.transport("oauth.har", mode: .recordAll, base: base)
        _ = try await Request {
            Url("http://api.test/oauth/token"); Method(.post); Using(recorder)
            Header.Any(key: "X-Vendor-Token", value: "vendor-secret-5")
            Header.ContentType(.formURLEncoded)
            Body("grant_type=refresh_token&refresh_token=rt-secret-2&client_id=app&client_secret=cs-secret-6")
        }.send()
        let onDisk = try folder.allText()
        for secret in [
            "at-secret-1", "rt-secret-2", "vendor-secret-3", "idt-secret-4", "vendor-secret-5", "cs-secret-6",
        ] {
            #expect(!onDisk.contains(secret), "\(secret) reached the cassette")
        }
        #expect(onDisk.contains("client_id=app"))
        #expect(onDisk.contains(#"\"author\":\"Ann\""#) && onDisk.contains(#"\"max_tokens\":5"#))
    }

}

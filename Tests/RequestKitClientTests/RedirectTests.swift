import Foundation
import RequestKitClient
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Redirect policy", .wallClock)
struct RedirectTests {
    @Test("Redirects are followed by default, up to the limit", arguments: WireTransport.all)
    func followsByDefault(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let response = try await Request { Url(server.url("/redirect/3")) }.send()
        #expect(response.statusCode == 200)
        #expect(response.url?.path == "/get")
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(server.url("/redirect/3"))
                Using(transport.transport); Redirects(.follow(limit: 2))
            }.send()
        }
        #expect(error.kind == .tooManyRedirects)
        #expect(error.statusCode == 302)
    }

    @Test("Not following returns the 3xx with its Location", arguments: WireTransport.all)
    func doNotFollow(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let client = Client(baseURL: server.url("/")) {
            $0.transport = transport.transport
            $0.redirectPolicy = .doNotFollow
        }
        let response = try await client.send(
            Request {
                Path("redirect-to"); Query("url", value: "/anything/next")
            })
        #expect(response.statusCode == 302)
        #expect(response.headers.location?.absoluteString == "/anything/next")
        #expect(server.requests.map(\.path) == ["/redirect-to"])
    }

    @Test("A custom policy can change the next request or stop at the redirect", arguments: WireTransport.all)
    func customPolicy(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let hops = Log()
        let marking = RedirectPolicy.custom { response, next in
            hops.add("\(response.statusCode) → \(next.url?.path ?? "")")
            var next = next
            next.setValue("yes", forHTTPHeaderField: "X-Redirected")
            return next
        }
        let response = try await Request {
            Url(server.url("/redirect-to?url=/anything/end&status_code=307"))
            Using(transport.transport); Redirects(marking)
        }.send()
        #expect(response.statusCode == 200)
        #expect(hops.entries == ["307 → /anything/end"])
        #expect(server.requests.last?.header("X-Redirected") == "yes")
        let stopping = RedirectPolicy.custom { _, _ in nil }
        let stopped = try await Request {
            Url(server.url("/redirect/1"))
            Using(transport.transport); Redirects(stopping)
        }.send()
        #expect(stopped.statusCode == 302)
    }

    @Test(
        "Authorization and Cookie are dropped on a redirect to another origin and kept on the same origin",
        arguments: WireTransport.all)
    func crossOriginStripping(_ transport: WireTransport) async throws {
        let origin = try transport.server()
        defer { origin.stop() }
        let other = try transport.server()
        defer { other.stop() }
        let target = other.url("/anything/elsewhere").absoluteString
        let request = Request {
            Url(origin.url("/redirect-to"))
            Using(transport.transport)
            Query("url", value: target)
            Header.Authorization(.bearer("secret"))
            Cookie("session", "abc")
            Header.Any(key: "X-Keep", value: "1")
        }
        #expect(try await request.send().statusCode == 200)
        let away = try #require(other.requests.last)
        #expect(away.header("Authorization") == nil)
        #expect(away.header("Cookie") == nil)
        #expect(away.header("X-Keep") == "1")

        let same = Request {
            Url(origin.url("/redirect-to?url=/anything/here"))
            Using(transport.transport)
            Header.Authorization(.bearer("secret"))
            Cookie("session", "abc")
        }
        #expect(try await same.send().statusCode == 200)
        let here = try #require(origin.requests.last)
        #expect(here.path == "/anything/here")
        #expect(here.header("Authorization") == "Bearer secret")
        #expect(here.header("Cookie") == "session=abc")
    }
}

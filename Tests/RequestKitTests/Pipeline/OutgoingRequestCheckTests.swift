import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("What is sent is checked where it is sent", .wallClock)
struct OutgoingRequestCheckTests {
    struct SetHeader: Interceptor {
        let name: String
        let value: String
        func adapt(_ request: URLRequest) async throws -> URLRequest {
            var request = request
            request.setValue(value, forHTTPHeaderField: name)
            return request
        }
    }

    @Test(
        "A header name an interceptor adds with CR or LF fails as an invalid request naming it, and nothing is sent",
        arguments: WireTransport.all)
    func interceptorHeaderNames(transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        for name in ["X-T\r\nX-Injected", "X-T\0"] {
            let error = try await #require(throws: RequestError.self) {
                try await Request {
                    Url(server.url("/get")); Using(transport.transport); Intercept(SetHeader(name: name, value: "yes"))
                }.send()
            }
            #expect(error.kind == .invalidRequest)
            #expect(error.problems.map(\.kind) == [.invalidHeaderName])
        }
        #expect(server.requests.isEmpty)
    }

    @Test(
        "A header value with CR, LF or NUL never reaches the wire: Foundation on Linux drops it as it is set",
        arguments: WireTransport.all)
    func interceptorHeaderValues(transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        for value in ["a\r\nX-Injected: yes", "a\nb", "a\0b"] {
            do {
                _ = try await Request {
                    Url(server.url("/get")); Using(transport.transport)
                    Intercept(SetHeader(name: "X-Token", value: value))
                }.send()
            } catch {
                #expect(error.kind == .invalidRequest)
            }
        }
        #expect(server.requests.allSatisfy { $0.header("X-Token") == nil && $0.header("X-Injected") == nil })
    }

    @Test("A bearer token with a control character fails as an invalid request instead of going out without it")
    func bearerToken() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let auth = BearerAuthenticator(token: "abc\r\nX-Injected: yes") { _ in "unused" }
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(server.url("/get")); Intercept(auth)
            }.send()
        }
        #expect(error.kind == .invalidRequest)
        #expect(error.problems.map(\.kind) == [.invalidHeaderValue])
        #expect(server.requests.isEmpty)
    }

    @Test("A body's media type and a form part's media type with CR or LF are reported when the request is built")
    func mediaTypes() throws {
        let injected = MediaType("text/plain\r\nX-Injected: yes")
        let body = try #require(throws: RequestError.self) {
            try Request {
                Url("http://127.0.0.1:1/upload"); Method(.post); Body("hi", contentType: injected)
            }.urlRequest()
        }
        #expect(body.problems.map(\.kind) == [.invalidHeaderValue])
        let form = try #require(throws: RequestError.self) {
            try Request {
                Url("http://127.0.0.1:1/upload"); Method(.post)
                Body(form: Form { FormPart(name: "note", contentType: injected, data: Data("x".utf8)) })
            }.urlRequest()
        }
        #expect(form.problems.map(\.kind) == [.invalidHeaderValue])
        #expect(form.description.contains(#"form part "note""#))
    }

    @Test(
        "A redirect to a URL that is not http or https is refused, whatever the transport", arguments: WireTransport.all
    )
    func redirectSchemes(transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        for target in ["file:///etc/passwd", "data:,x", "ftp://127.0.0.1/x"] {
            server.route("/away") { _ in .redirect(to: target) }
            let error = try await #require(throws: RequestError.self) {
                try await Request {
                    Url(server.url("/away")); Using(transport.transport)
                }.send()
            }
            #expect(error.kind == .redirectRefused)
            #expect(error.response?.statusCode == 302)
            #expect(error.description.contains(target), "\(error.description)")
            let kept = try await Request {
                Url(server.url("/away")); Using(transport.transport); Redirects(.doNotFollow)
            }.send()
            #expect(kept.statusCode == 302)
            #expect(kept.headers["Location"] == target)
        }
    }
}

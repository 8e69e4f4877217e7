import Foundation
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitPipeline
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `RequestExecutor`, the front of the pipeline, driven through its own API with a `MockTransport`: no verb and no
/// socket between the request's parts and the transport.
@Suite("Pipeline: RequestExecutor over a mock transport")
struct RequestExecutorTests {
    struct SetHeader: Interceptor {
        let name: String
        let value: String
        func adapt(_ request: URLRequest) async throws -> URLRequest {
            var request = request
            request.setValue(value, forHTTPHeaderField: name)
            return request
        }
    }

    @Test("A request that names no transport goes to the default it is handed, built as its parts say")
    func defaultTransport() async throws {
        let transport = MockTransport()
        transport.enqueue(Response(status: 201, body: Data("made".utf8)))
        let parts = Request {
            Url("http://api.test/orders?page=2")
            Method(.post)
            Header.Any(key: "X-Trace", value: "7")
        }.parts()
        let response = try await RequestExecutor.send(parts, defaultTransport: transport)
        #expect(response.statusCode == 201)
        #expect(response.body == Data("made".utf8))
        #expect(transport.requests.count == 1)
        let sent = try #require(transport.requests.first)
        #expect(sent.url?.absoluteString == "http://api.test/orders?page=2")
        #expect(sent.httpMethod == "POST")
        #expect(sent.value(forHTTPHeaderField: "X-Trace") == "7")
    }

    @Test("A transport named with Using is taken instead of the default, which hears nothing")
    func namedTransport() async throws {
        let fallback = MockTransport()
        let named = MockTransport { _ in Response(status: 200, body: Data("named".utf8)) }
        let parts = Request {
            Url("http://api.test/health")
            Using(named)
        }.parts()
        let response = try await RequestExecutor.send(parts, defaultTransport: fallback)
        #expect(response.body == Data("named".utf8))
        #expect(named.requests.map(\.url?.path) == ["/health"])
        #expect(fallback.requests.isEmpty)
    }

    @Test("Parts with a problem fail as an invalid request naming it, before any transport is asked")
    func problemsFailFirst() async throws {
        let transport = MockTransport { _ in Response(status: 200) }
        var parts = Request { Url("http://api.test/items") }.parts()
        parts.report(RequestProblem(.invalidComponent, "page must be positive"))
        let error = try await #require(throws: RequestError.self) {
            try await RequestExecutor.send(parts, defaultTransport: transport)
        }
        #expect(error.kind == .invalidRequest)
        #expect(error.problems.map(\.kind) == [.invalidComponent])
        #expect(transport.requests.isEmpty)
    }

    @Test("An error status comes back as a response with its body: validating it is the verbs' job")
    func errorStatusIsAResponse() async throws {
        let transport = MockTransport { _ in Response(status: 404, body: Data("no such order".utf8)) }
        let response = try await RequestExecutor.send(
            Request { Url("http://api.test/orders/9") }.parts(), defaultTransport: transport)
        #expect(response.statusCode == 404)
        #expect(response.body == Data("no such order".utf8))
    }

    @Test("A retryable status is asked again of the same transport, and the last answer is returned")
    func retries() async throws {
        let transport = MockTransport()
        transport.enqueue(Response(status: 503))
        transport.enqueue(Response(status: 200, body: Data("ok".utf8)))
        let parts = Request {
            Url("http://api.test/flaky")
            Retry(RetryPolicy(maxAttempts: 2, baseDelay: 0.01, usesJitter: false))
        }.parts()
        let response = try await RequestExecutor.send(parts, defaultTransport: transport)
        #expect(response.statusCode == 200)
        #expect(response.body == Data("ok".utf8))
        #expect(transport.requests.map(\.url?.path) == ["/flaky", "/flaky"])
    }

    @Test("A redirect is followed through the same transport: after a 303, a POST goes on as a GET")
    func followsRedirects() async throws {
        let transport = MockTransport { request in
            request.url?.path == "/old"
                ? Response(status: 303, headers: ["Location": "/new"])
                : Response(status: 200, body: Data("new".utf8))
        }
        let parts = Request {
            Url("http://api.test/old")
            Method(.post)
        }.parts()
        let response = try await RequestExecutor.send(parts, defaultTransport: transport)
        #expect(response.statusCode == 200)
        #expect(response.body == Data("new".utf8))
        #expect(transport.requests.map(\.url?.path) == ["/old", "/new"])
        #expect(transport.requests.map(\.httpMethod) == ["POST", "GET"])
    }

    @Test("What an interceptor changes is what the transport receives")
    func interceptors() async throws {
        let transport = MockTransport { _ in Response(status: 204) }
        let parts = Request {
            Url("http://api.test/signed")
            Intercept(SetHeader(name: "X-Signature", value: "abc"))
        }.parts()
        _ = try await RequestExecutor.send(parts, defaultTransport: transport)
        #expect(transport.requests.map { $0.value(forHTTPHeaderField: "X-Signature") } == ["abc"])
    }

    @Test("A failure the transport reports comes out as that kind of RequestError")
    func transportFailure() async throws {
        let transport = MockTransport()
        transport.enqueue(RequestError.timedOut("simulated"))
        let error = try await #require(throws: RequestError.self) {
            try await RequestExecutor.send(
                Request { Url("http://api.test/slow") }.parts(), defaultTransport: transport)
        }
        #expect(error.kind == .timedOut)
        #expect(transport.requests.count == 1)
    }

    @Test("stream returns at the head, and the body follows from the transport's stream")
    func streams() async throws {
        let transport = MockTransport { _ in Response(status: 200, body: Data("streamed".utf8)) }
        let streaming = try await RequestExecutor.stream(
            Request { Url("http://api.test/feed") }.parts(), defaultTransport: transport)
        #expect(streaming.head.statusCode == 200)
        var body = Data()
        for try await chunk in streaming.body { body.append(chunk) }
        #expect(body == Data("streamed".utf8))
    }
}

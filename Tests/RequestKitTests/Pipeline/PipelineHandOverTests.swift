import Foundation
import RequestKit
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the pipeline works out once and hands on (the authority of a plain URL to the transport, the transport's
/// own framing check to the pipeline) holds only for what it was worked out from.
@Suite("What the pipeline hands on")
struct PipelineHandOverTests {
    @Test(
        "A transport in between that sends the request elsewhere reaches the new server, on every transport",
        arguments: WireTransport.withTLS)
    func reroutedURL(_ wire: WireTransport) async throws {
        let first = try wire.server()
        defer { first.stop() }
        let second = try wire.server()
        defer { second.stop() }
        let rerouting = Rerouting(base: wire.transport, to: second.url("/anything/moved"))
        let request = Request {
            Url(first.url("/anything/original"))
            Using(rerouting)
        }
        let sent = try await request.send()
        let streamed = try await request.stream()
        _ = try await streamed.collect()
        #expect(sent.statusCode == 200)
        #expect(sent.url?.absoluteString == second.url("/anything/moved").absoluteString)
        #expect(streamed.head.statusCode == 200)
        #expect(first.requests.isEmpty)
        #expect(second.requests.map(\.target) == ["/anything/moved", "/anything/moved"])
    }

    @Test("An interceptor that sends the request elsewhere reaches the new server")
    func interceptedURL() async throws {
        let first = try TestServer()
        defer { first.stop() }
        let second = try TestServer()
        defer { second.stop() }
        let response = try await Request {
            Url(first.url("/anything/original"))
            Using(HTTP1Transport.shared)
            Intercept(URLSetter(url: second.url("/anything/moved")))
        }.send()
        #expect(response.statusCode == 200)
        #expect(first.requests.isEmpty)
        #expect(second.requests.map(\.target) == ["/anything/moved"])
    }

    @Test("A redirect to another port after a plain URL goes to that port")
    func redirectToAnotherPort() async throws {
        let target = try TestServer()
        defer { target.stop() }
        let origin = try TestServer()
        defer { origin.stop() }
        let response = try await Request {
            Url(origin.url("/redirect-to"))
            Query("url", value: target.url("/anything/landed").absoluteString)
            Query("status_code", value: "302")
            Using(HTTP1Transport.shared)
        }.send()
        #expect(response.statusCode == 200)
        #expect(origin.requests.count == 1)
        #expect(target.requests.map(\.target) == ["/anything/landed"])
    }

    @Test("Headers changed after the native transport parsed them are checked again, sent or streamed")
    func changedHeadersAreChecked() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let editing = HeaderEditing(base: HTTP1Transport.shared, name: "Content-Length", value: "5, 6")
        for stream in [false, true] {
            let request = Request {
                Url(server.url("/bytes/4"))
                Using(editing)
            }
            let error = await #expect(throws: RequestError.self) {
                if stream { _ = try await request.stream() } else { _ = try await request.send() }
            }
            #expect(error?.kind == .transport, "stream: \(stream)")
            #expect(error?.detail == "conflicting Content-Length values", "stream: \(stream)")
        }
        // Unchanged, the same response passes.
        let body = try await Request {
            Url(server.url("/bytes/4"))
            Using(HTTP1Transport.shared)
        }.data()
        #expect(body.count == 4)
    }
}

/// An interceptor that sends every attempt to `url`.
private struct URLSetter: Interceptor {
    let url: URL

    func adapt(_ request: URLRequest) async throws -> URLRequest {
        var request = request
        request.url = url
        return request
    }
}

/// A transport that sends every request to `url` instead, through `base`.
private struct Rerouting: Transport {
    let base: any Transport
    let url: URL

    init(base: any Transport, to url: URL) {
        self.base = base
        self.url = url
    }

    func send(_ request: TransferRequest) async throws -> Response {
        try await base.send(rerouted(request))
    }

    func stream(_ request: TransferRequest) async throws -> StreamingResponse {
        try await base.stream(rerouted(request))
    }

    private func rerouted(_ request: TransferRequest) -> TransferRequest {
        var request = request
        request.urlRequest.url = url
        return request
    }
}

/// A transport that adds a header to every response head `base` returns.
private struct HeaderEditing: Transport {
    let base: any Transport
    let name: String
    let value: String

    func send(_ request: TransferRequest) async throws -> Response {
        var response = try await base.send(request)
        response.headers.add(name, value)
        return response
    }

    func stream(_ request: TransferRequest) async throws -> StreamingResponse {
        var streaming = try await base.stream(request)
        streaming.head.headers.add(name, value)
        return streaming
    }
}

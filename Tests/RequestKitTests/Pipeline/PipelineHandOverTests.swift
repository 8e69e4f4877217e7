import Foundation
import RequestKitTestSupport
import RequestKitTesting
import Testing

@testable import RequestKit
@testable import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the pipeline works out once and hands on (the authority of a plain URL to the transport, the transport's
/// own framing check to the pipeline) holds only for what it was worked out from.
@Suite("What the pipeline hands on", .wallClock)
struct PipelineHandOverTests {
    @Test(
        "A transport in between that sends the request elsewhere reaches the new server, on every transport",
        arguments: WireTransport.withTLS)
    func reroutedURL(_ wire: WireTransport) async throws {
        let first = try wire.server()
        defer { first.stop() }
        let second = try wire.server()
        defer { second.stop() }
        let moved = second.url("/anything/moved")
        let rerouting = Editing(base: wire.transport) { $0.urlRequest.url = moved }
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

    @Test("A transfer's url is the built request's, read without a URLRequest, and follows a replaced head")
    func transferURL() async throws {
        let seen = TransferLog()
        _ = try await Request {
            Url("http://127.0.0.1:9/items?page=2")
            Using(seen)
        }.send()
        let transfer = try #require(seen.transfers.first)
        #expect(transfer.url?.absoluteString == "http://127.0.0.1:9/items?page=2")
        #expect(transfer.built != nil)

        var replaced = transfer
        replaced.urlRequest.url = URL(string: "http://127.0.0.1:9/elsewhere")
        #expect(replaced.url?.absoluteString == "http://127.0.0.1:9/elsewhere")
        #expect(replaced.built == nil)
        let given = TransferRequest(URLRequest(url: try #require(URL(string: "http://127.0.0.1:9/given"))))
        #expect(given.url?.absoluteString == "http://127.0.0.1:9/given")
    }

    @Test("An interceptor that sends the request elsewhere reaches the new server")
    func interceptedURL() async throws {
        let first = try TestServer()
        defer { first.stop() }
        let second = try TestServer()
        defer { second.stop() }
        let response = try await Request {
            Url(first.url("/anything/original"))
            Using(NativeTransport.shared)
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
            Using(NativeTransport.shared)
        }.send()
        #expect(response.statusCode == 200)
        #expect(origin.requests.count == 1)
        #expect(target.requests.map(\.target) == ["/anything/landed"])
    }

    @Test("Headers changed after the native transport parsed them are checked again, sent or streamed")
    func changedHeadersAreChecked() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let editing = HeaderEditing(base: NativeTransport.shared, name: "Content-Length", value: "5, 6")
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
            Using(NativeTransport.shared)
        }.data()
        #expect(body.count == 4)
    }
}

/// The request the pipeline built (``BuiltRequest``: URL, method, fields, timeout, body) is sent without a `URLRequest`
/// by the native transport and made into one for any other, so the two must say the same.
@Suite("What the pipeline tells the transport", .wallClock)
struct PipelineFactsTests {
    /// Requests of several shapes, each with its name, made for a URL.
    static let shapes: [(String, @Sendable (URL) -> Request)] = [
        ("GET with nothing else", { url in Request { Url(url) } }),
        (
            "HEAD",
            { url in
                Request {
                    Url(url); Method(.head)
                }
            }
        ),
        (
            "POST with a JSON body and headers",
            { url in
                Request {
                    Url(url); Method(.post); Header.Accept(.json); Header.Any(key: "x-trace-id", value: "t-1")
                    Body(Data(#"{"a":1}"#.utf8), contentType: .json)
                }
            }
        ),
        (
            "PUT with an empty body",
            { url in
                Request {
                    Url(url); Method(.put); Body(Data())
                }
            }
        ),
        (
            "a method written in lower case",
            { url in
                Request {
                    Url(url); Method(HTTPMethod("delete"))
                }
            }
        ),
        (
            "a custom method with a timeout",
            { url in
                Request {
                    Url(url); Method(HTTPMethod("PURGE")); Timeout(7)
                }
            }
        ),
        (
            "two fields of one name, written in different cases",
            { url in
                Request {
                    Url(url); Header.Any(key: "X-Dup", value: "1", appending: true)
                    Header.Accept(.json); Header.Any(key: "x-dup", value: "2", appending: true)
                }
            }
        ),
    ]

    @Test(
        "A built request puts on the wire what its URLRequest sent to the transport directly puts, sent or streamed",
        arguments: WireTransport.withTLS)
    func sameAsDirect(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        for (name, shape) in Self.shapes {
            let request = shape(server.url("/anything/shape"))
            let built = request.adding { Using(wire.transport) }
            _ = try await built.send()
            _ = try await built.stream().collect()
            let parts = request.parts()
            let direct = TransferRequest(try request.urlRequest(), body: parts.body)
            _ = try await wire.transport.send(direct)
            _ = try await wire.transport.stream(direct).collect()
            let seen = server.requests.suffix(4)
            try #require(seen.count == 4, "\(name)")
            let expected = seen[seen.endIndex - 2]
            for request in seen {
                #expect(request.method == expected.method, "\(name)")
                #expect(request.target == expected.target, "\(name)")
                #expect(request.body == expected.body, "\(name)")
                // In any order (URLSession writes its fields in the order of a dictionary), and names in any case:
                // FoundationNetworking capitalises the names of a URLRequest's fields, a built request keeps them.
                #expect(
                    request.headers.map { "\($0.name.lowercased()): \($0.value)" }.sorted()
                        == expected.headers.map { "\($0.name.lowercased()): \($0.value)" }.sorted(), "\(name)")
            }
        }
        #expect(server.requests.map(\.method).filter { $0 == "DELETE" }.count == 4)
    }

    @Test(
        "Over the native transport, a built request's fields go out in the order and the case written, one line a name",
        arguments: [WireTransport.all[1], WireTransport.nativeTLS])
    func fieldsAsWritten(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let request = Request {
            Url(server.url("/anything/fields"))
            Header.Any(key: "x-trace-id", value: "t-1")
            Header.Any(key: "X-Dup", value: "1", appending: true)
            Header.Accept(.json)
            Header.Any(key: "x-DUP", value: "2", appending: true)
            Using(wire.transport)
        }
        for stream in [false, true] {
            if stream { _ = try await request.stream().collect() } else { _ = try await request.send() }
            let sent = try #require(server.requests.last).headers.map { "\($0.name): \($0.value)" }
            #expect(
                sent.prefix(3) == ["x-trace-id: t-1", "X-Dup: 1,2", "Accept: application/json"], "stream: \(stream)")
        }
    }

    @Test("A transport that reads the URLRequest of a built request gets the URL, method, fields, timeout and body")
    func urlRequestOfBuiltRequest() async throws {
        let mock = MockTransport { _ in Response(status: .ok) }
        let url = try #require(URL(string: "http://127.0.0.1:9/anything/shape?q=1"))
        for (_, shape) in Self.shapes { _ = try await shape(url).adding { Using(mock) }.send() }
        let read = mock.requests
        #expect(read.map(\.url) == Array(repeating: url, count: Self.shapes.count))
        #expect(read.map(\.httpMethod) == ["GET", "HEAD", "POST", "PUT", "DELETE", "PURGE", "GET"])
        #expect(read.map(\.timeoutInterval) == [60, 60, 60, 60, 60, 7, 60])
        #expect(
            read.map { String(decoding: $0.httpBody ?? Data(), as: UTF8.self) } == [
                "", "", #"{"a":1}"#, "", "", "", "",
            ])
        // Names in any case: FoundationNetworking capitalises them.
        let fields = read.map { request in
            (request.allHTTPHeaderFields ?? [:]).map { "\($0.key.lowercased()): \($0.value)" }.sorted()
        }
        #expect(
            fields == [
                [], [], ["accept: application/json", "content-type: application/json", "x-trace-id: t-1"],
                ["content-type: application/octet-stream"], [], [],
                ["accept: application/json", "x-dup: 1,2"],
            ])
    }

    @Test("A method is sent as FoundationNetworking's URLRequest writes it, on every platform")
    func methodSentForm() {
        let written = ["get", "Head", "post", "pUt", "delete", "CONNECT", "patch", "Options", "PURGE", "propfind"]
        #expect(
            written.map { HTTPMethod($0).sentForm }
                == ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "patch", "Options", "PURGE", "propfind"])
    }

    @Test("A request's Timeout holds on every transport, sent or streamed", arguments: WireTransport.withTLS)
    func timeoutHolds(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let request = Request {
            Url(server.url("/delay/300"))
            Timeout(0.5)
            Using(wire.transport)
        }
        for stream in [false, true] {
            let error = await #expect(throws: RequestError.self) {
                if stream { _ = try await request.stream() } else { _ = try await request.send() }
            }
            #expect(error?.kind == .timedOut, "stream: \(stream)")
        }
    }

    @Test("A transport in between that changes the method or adds a header gets them sent, sent or streamed")
    func changedRequestIsRead() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // Sent as a PATCH with a header of its own.
        let changing = Editing(base: NativeTransport.shared) { transfer in
            transfer.urlRequest.httpMethod = "PATCH"
            transfer.urlRequest.setValue("yes", forHTTPHeaderField: "X-Added")
        }
        let request = Request {
            Url(server.url("/anything/changed"))
            Using(changing)
        }
        _ = try await request.send()
        _ = try await request.stream().collect()
        #expect(server.requests.map(\.method) == ["PATCH", "PATCH"])
        #expect(server.requests.map { $0.header("X-Added") } == ["yes", "yes"])
    }

    @Test(
        "A transport in between that replaces the body gets the new body sent; one that drops it leaves the request's own"
    )
    func replacedBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        for (replacement, sent) in [(Data("replaced!".utf8), "replaced!"), (nil, "original")] {
            let request = Request {
                Url(server.url("/anything/body"))
                Method(.post)
                Body("original")
                // The transfer's body replaced (none, when nil), the URLRequest left as it is.
                Using(
                    Editing(base: NativeTransport.shared) {
                        $0.body = replacement.map { RequestBody($0, contentType: nil) }
                    })
            }
            _ = try await request.send()
            #expect(server.requests.last?.bodyText == sent)
            #expect(server.requests.last?.header("Content-Length") == String(sent.utf8.count))
        }
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

/// A transport that edits every transfer before `base` sends or streams it.
private struct Editing: Transport {
    let base: any Transport
    let edit: @Sendable (inout TransferRequest) -> Void

    func send(_ request: TransferRequest) async throws -> Response {
        try await base.send(edited(request))
    }

    func stream(_ request: TransferRequest) async throws -> StreamingResponse {
        try await base.stream(edited(request))
    }

    private func edited(_ request: TransferRequest) -> TransferRequest {
        var request = request
        edit(&request)
        return request
    }
}

/// A transport that keeps every transfer it is asked for and answers 204 at once.
private final class TransferLog: Transport, @unchecked Sendable {
    // Safe: `stored` is read and written while holding `lock`.
    private let lock = NSLock()
    private var stored: [TransferRequest] = []

    var transfers: [TransferRequest] { lock.withLock { stored } }

    func send(_ request: TransferRequest) async throws -> Response {
        lock.withLock { stored.append(request) }
        return Response(status: .noContent, headers: [:], body: Data())
    }

    func stream(_ request: TransferRequest) async throws -> StreamingResponse {
        StreamingResponse(head: try await send(request), body: ResponseBodyStream(Data()))
    }
}

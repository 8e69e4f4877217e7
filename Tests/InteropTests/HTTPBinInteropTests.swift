import Foundation
import RequestKit
import Testing

@Suite("Interop with httpbin under gunicorn", .enabled(if: HTTPBin.isAvailable, "REQUESTKIT_HTTPBIN_URL is not set"))
struct HTTPBinInteropTests {
    @Test(
        "The native transport speaks the protocol the run expects: h2 behind nginx with http2, http/1.1 without",
        .enabled(if: HTTPBin.expectedProtocol != nil, "REQUESTKIT_HTTPBIN_EXPECT_PROTOCOL is not set"))
    func expectedProtocol() async throws {
        let responses = try await RequestGroup {
            for index in 0..<4 {
                Request {
                    Url(HTTPBin.url("/get?n=\(index)")); Using(NativeTransport.shared)
                }
            }
        }.send()
        for result in responses {
            let response = try result.get()
            #expect(response.statusCode == 200)
            #expect(response.metrics.attempts.last?.networkProtocol == HTTPBin.expectedProtocol)
        }
    }

    @Test("GET echoes the exact query and headers", arguments: HTTPBin.transports)
    func getEcho(_ transport: TransportCase) async throws {
        let json = try await Request {
            Url(HTTPBin.url("/get"))
            Using(transport.transport)
            Query("q", value: "a+b & c/d?e#f")
            Query("tag", values: ["x", "y"])
            Query("caf\u{e9}", value: "\u{1F600}")
            Header.Any(key: "X-Trace", value: "t-1")
            Header.Accept(.json)
        }.json()
        #expect(json.args.q.string == "a+b & c/d?e#f")
        #expect(json.args.tag == ["x", "y"])
        #expect(json.args["caf\u{e9}"].string == "\u{1F600}")
        #expect(json.headers["X-Trace"].string == "t-1")
        #expect(json.headers.Accept.string == "application/json")
        #expect(json.url.string?.hasPrefix(HTTPBin.url("/get?q=a%2Bb%20%26%20")) == true)
    }

    @Test("POST sends JSON, form and raw bodies byte for byte", arguments: HTTPBin.transports)
    func postEcho(_ transport: TransportCase) async throws {
        let json = try await Request {
            Url(HTTPBin.url("/post"))
            Using(transport.transport)
            Method(.post)
            Body(json: ["title": "caf\u{e9}", "n": 9_007_199_254_740_993])
        }.json()
        #expect(json.data.string == #"{"title":"café","n":9007199254740993}"#)
        #expect(json.json.n.int64 == 9_007_199_254_740_993)
        #expect(json.headers["Content-Type"].string == "application/json")

        let form = try await Request {
            Url(HTTPBin.url("/post"))
            Using(transport.transport)
            Method(.post)
            Body(form: [("name", "Ann Lee"), ("q", "a&b=c")])
        }.json()
        #expect(form.form.name.string == "Ann Lee")
        #expect(form.form.q.string == "a&b=c")

        let bytes = Data((0..<256).map { UInt8($0) })
        let raw = try await Request {
            Url(HTTPBin.url("/anything"))
            Using(transport.transport)
            Method(.put)
            Body(bytes)
        }.json()
        #expect(raw.method.string == "PUT")
        #expect(raw.headers["Content-Length"].string == "256")
        #expect(raw.headers["Content-Type"].string == "application/octet-stream")
    }

    @Test("Statuses come back exactly; validation turns them into errors", arguments: HTTPBin.transports)
    func statuses(_ transport: TransportCase) async throws {
        for code in [200, 201, 204, 400, 404, 418, 500, 503] {
            let response = try await Request {
                Url(HTTPBin.url("/status/\(code)"))
                Using(transport.transport)
            }.send()
            #expect(response.statusCode == code)
        }
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(HTTPBin.url("/status/404")); Using(transport.transport)
            }.data()
        }
        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 404)
    }

    @Test("Redirects are followed to the final URL", arguments: HTTPBin.transports)
    func redirects(_ transport: TransportCase) async throws {
        let response = try await Request {
            Url(HTTPBin.url("/redirect/3"))
            Using(transport.transport)
        }.send()
        #expect(response.statusCode == 200)
        #expect(response.url?.absoluteString == HTTPBin.url("/get"))
    }

    @Test(
        "Basic authentication succeeds with the right password and fails with a wrong one",
        arguments: HTTPBin.transports)
    func basicAuth(_ transport: TransportCase) async throws {
        let ok = try await Request {
            Url(HTTPBin.url("/basic-auth/ann/s3cret"))
            Using(transport.transport)
            Header.Authorization(.basic(username: "ann", password: "s3cret"))
        }.json()
        #expect(ok.authenticated.bool == true)
        #expect(ok.user.string == "ann")
        let denied = try await Request {
            Url(HTTPBin.url("/basic-auth/ann/s3cret"))
            Using(transport.transport)
            Header.Authorization(.basic(username: "ann", password: "nope"))
        }.send()
        #expect(denied.statusCode == 401)
    }

    @Test("gzip and deflate bodies arrive decoded", arguments: HTTPBin.transports)
    func compression(_ transport: TransportCase) async throws {
        let gzip = try await Request {
            Url(HTTPBin.url("/gzip")); Using(transport.transport)
        }.json()
        #expect(gzip.gzipped.bool == true)
        let deflate = try await Request {
            Url(HTTPBin.url("/deflate")); Using(transport.transport)
        }.json()
        #expect(deflate.deflated.bool == true)
    }

    #if os(Linux)
    @Test("br bodies, compressed by httpbin's brotli, arrive decoded", arguments: HTTPBin.transports)
    func brotli(_ transport: TransportCase) async throws {
        let response = try await Request {
            Url(HTTPBin.url("/brotli")); Using(transport.transport)
        }.send()
        #expect(response.headers["Content-Encoding"] == "br")
        let document = try Json(parsing: response.body)
        #expect(document.brotli.bool == true)
        #expect(document.headers["Accept-Encoding"].string?.contains("br") == true)
    }
    #endif

    @Test("Chunked /stream and slow /drip bodies are read whole", arguments: HTTPBin.transports)
    func streamingRoutes(_ transport: TransportCase) async throws {
        let text = try await Request {
            Url(HTTPBin.url("/stream/5")); Using(transport.transport)
        }.string()
        let lines = text.split(separator: "\n")
        #expect(lines.count == 5)
        let ids = try lines.map { try Json(parsing: String($0)).id.int }
        #expect(ids == [0, 1, 2, 3, 4])
        let drip = try await Request {
            Url(HTTPBin.url("/drip?numbytes=10&duration=0.5&delay=0"))
            Using(transport.transport)
        }.data()
        #expect(drip == Data(repeating: UInt8(ascii: "*"), count: 10))
    }

    @Test("/delay beyond the idle timeout fails with a timeout; within it succeeds", arguments: HTTPBin.transports)
    func delays(_ transport: TransportCase) async throws {
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(HTTPBin.url("/delay/3")); Using(transport.transport); Timeout(0.5)
            }.send()
        }
        #expect(error.kind == .timedOut)
        // gunicorn's threads may still be sleeping through earlier delays of the suites running in parallel: the
        // idle timeout leaves room for that queue on a slow machine.
        let ok = try await Request {
            Url(HTTPBin.url("/delay/1")); Using(transport.transport); Timeout(120)
        }.send()
        #expect(ok.statusCode == 200)
    }

    @Test("/bytes returns exactly the requested number of bytes", arguments: HTTPBin.transports)
    func bytes(_ transport: TransportCase) async throws {
        for count in [0, 1, 1024, 100_000] {
            let data = try await Request {
                Url(HTTPBin.url("/bytes/\(count)?seed=7"))
                Using(transport.transport)
            }.data()
            #expect(data.count == count)
        }
    }

    @Test("A 1 MiB upload is echoed back intact", arguments: HTTPBin.transports)
    func upload(_ transport: TransportCase) async throws {
        let payload = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let json = try await Request {
            Url(HTTPBin.url("/anything"))
            Using(transport.transport)
            Method(.post)
            Body(payload)
        }.json()
        #expect(json.headers["Content-Length"].string == "1048576")
        let echoed = try #require(json.data.string)
        let prefix = "data:application/octet-stream;base64,"
        #expect(echoed.hasPrefix(prefix))
        #expect(Data(base64Encoded: String(echoed.dropFirst(prefix.count))) == payload)
    }
}

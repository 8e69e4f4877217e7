import Foundation

/// The httpbin-style routes every ``TestServer`` answers when no custom route matches.
///
/// Routes are chosen by the raw path's first segment; see ``TestServer`` for the list. Numbers in paths and
/// queries are validated, and out-of-range values get a `400` that says what was wrong.
///
/// ```swift
/// let response = BuiltInRoutes(core: core).response(for: request)
/// ```
struct BuiltInRoutes {
    let core: ServerCore

    /// The response for `request`, or a `404` whose text names the path.
    func response(for request: TestRequest) -> TestResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let name = segments.first ?? ""
        let rest = Array(segments.dropFirst())
        switch (name, rest.count) {
        case ("anything", _): return .json(echo(request))
        case ("get", 0): return methodChecked(request, allowed: ["GET", "HEAD"])
        case ("post", 0): return methodChecked(request, allowed: ["POST"])
        case ("put", 0): return methodChecked(request, allowed: ["PUT"])
        case ("patch", 0): return methodChecked(request, allowed: ["PATCH"])
        case ("delete", 0): return methodChecked(request, allowed: ["DELETE"])
        case ("headers", 0): return .json(.object(["headers": headersObject(request.headers)]))
        case ("ip", 0): return .json(.object(["origin": .string("127.0.0.1")]))
        case ("user-agent", 0): return .json(.object(["user-agent": .string(request.header("User-Agent") ?? "")]))
        case ("json", 0): return .json(Self.sampleDocument)
        case ("status", 1): return status(rest[0])
        case ("delay", 1): return delay(request, seconds: rest[0])
        case ("redirect", 1), ("relative-redirect", 1): return redirect(times: rest[0], prefix: "/\(name)/")
        case ("absolute-redirect", 1):
            return redirect(times: rest[0], prefix: "/absolute-redirect/", origin: "http://127.0.0.1:\(core.port)")
        case ("redirect-to", 0): return redirectTo(request)
        case ("bytes", 1): return bytes(request, count: rest[0])
        case ("basic-auth", 2): return basicAuth(request, user: rest[0], password: rest[1])
        case ("bearer", 0): return bearer(request)
        case ("cookies", 0): return .json(.object(["cookies": cookies(request)]))
        case ("cookies", 1) where rest[0] == "set": return setCookies(request)
        case ("cookies", 1) where rest[0] == "delete": return deleteCookies(request)
        case ("response-headers", 0): return responseHeaders(request)
        case ("etag", 1): return etag(request, tag: rest[0])
        case ("cache", 0): return cache(request)
        case ("cache", 1): return cache(request, maxAge: rest[0])
        case ("stream", 1): return stream(request, lines: rest[0])
        case ("drip", 0): return drip(request)
        case ("chunked", 0): return chunked(request)
        case ("large", 1): return large(bytes: rest[0])
        case ("range", 1): return range(request, count: rest[0])
        case ("upload", 0): return upload(request)
        case ("gzip", 0): return encoded(request, gzip: true)
        case ("deflate", 0): return encoded(request, gzip: false)
        case ("brotli", 0): return encoded(request, coding: .brotli)
        case ("zstd", 0): return encoded(request, coding: .zstd)
        case ("sse", 0): return serverSentEvents(request)
        case ("sequence", 1): return sequence(request, codes: rest[0])
        case ("fault", 1): return fault(kind: rest[0])
        case ("hostile", 1): return hostile(request, kind: rest[0])
        case ("websocket", _): return webSocket(request, path: rest)
        default: return .text("not found: \(request.path)", status: 404)
        }
    }

    /// A `400` response explaining what was wrong with the request.
    static func badRequest(_ message: String) -> TestResponse {
        .text(message, status: 400)
    }

    private func methodChecked(_ request: TestRequest, allowed: [String]) -> TestResponse {
        guard allowed.contains(request.method) else {
            var response = TestResponse.text("method not allowed: \(request.method)", status: 405)
            response.headers.append(("Allow", allowed.joined(separator: ", ")))
            return response
        }
        return .json(echo(request))
    }

    /// A small fixed JSON document, modelled on httpbin's slideshow.
    static let sampleDocument: JSONValue = .object([
        "slideshow": .object([
            "author": .string("Yours Truly"),
            "date": .string("date of publication"),
            "title": .string("Sample Slide Show"),
            "slides": .array([
                .object(["title": .string("Wake up to WonderWidgets!"), "type": .string("all")]),
                .object([
                    "items": .array([
                        .string("Why <em>WonderWidgets</em> are great"),
                        .string("Who <em>buys</em> WonderWidgets"),
                    ]),
                    "title": .string("Overview"),
                    "type": .string("all"),
                ]),
            ]),
        ])
    ])
}

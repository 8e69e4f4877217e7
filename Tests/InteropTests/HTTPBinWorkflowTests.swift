import Foundation
import RequestKit
import Testing

@Suite(
    "Interop: redirects, cookies, groups, chains and polling",
    .enabled(if: HTTPBin.isAvailable, "REQUESTKIT_HTTPBIN_URL is not set"))
struct HTTPBinWorkflowTests {
    /// The same server under another host name: a different origin.
    static func otherOrigin(_ pathAndQuery: String) -> String {
        HTTPBin.url(pathAndQuery).replacingOccurrences(of: "://127.0.0.1:", with: "://localhost:")
    }

    @Test("A redirect policy that does not follow returns the 3xx", arguments: HTTPBin.transports)
    func doNotFollow(_ transport: TransportCase) async throws {
        let response = try await Request {
            Url(HTTPBin.url("/redirect/2"))
            Using(transport.transport)
            Redirects(.doNotFollow)
        }.send()
        #expect(response.statusCode == 302)
        #expect(response.headers["Location"] == "/relative-redirect/1")
    }

    @Test("Credentials stay on a same-origin redirect and are dropped across origins", arguments: HTTPBin.transports)
    func crossOriginStripping(_ transport: TransportCase) async throws {
        let target = Self.otherOrigin("/headers")
        let escaped = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        let crossed = try await Request {
            Url(HTTPBin.url("/redirect-to?url=\(escaped)"))
            Using(transport.transport)
            Header.Authorization(.bearer("secret"))
            Cookie("session", "abc")
        }.json()
        #expect(crossed.headers.Host.string?.hasPrefix("localhost:") == true)
        #expect(crossed.headers.Authorization.isMissing)
        #expect(crossed.headers.Cookie.isMissing)

        let same = try await Request {
            Url(HTTPBin.url("/redirect-to?url=%2Fheaders"))
            Using(transport.transport)
            Header.Authorization(.bearer("secret"))
        }.json()
        #expect(same.headers.Authorization.string == "Bearer secret")
    }

    @Test("A cookie jar keeps httpbin's Set-Cookie and sends it back", arguments: HTTPBin.transports)
    func cookieJar(_ transport: TransportCase) async throws {
        let jar = CookieJar()
        let json = try await Request {
            Url(HTTPBin.url("/cookies/set?flavour=oatmeal&size=large"))
            Using(transport.transport)
            UseCookies(jar)
        }.json()
        #expect(json.cookies.flavour.string == "oatmeal")
        #expect(json.cookies.size.string == "large")
        let again = try await Request {
            Url(HTTPBin.url("/cookies"))
            Using(transport.transport)
            UseCookies(jar)
        }.json()
        #expect(again.cookies.flavour.string == "oatmeal")
    }

    @Test("A group returns every result in order, failures in their slots", arguments: HTTPBin.transports)
    func group(_ transport: TransportCase) async throws {
        let codes = [200, 404, 201, 500, 204]
        let results = try await RequestGroup(maxConcurrent: 3) {
            for code in codes {
                Request {
                    Url(HTTPBin.url("/status/\(code)")); Using(transport.transport)
                }
            }
        }.send()
        let statuses = results.map { result -> Int in
            switch result {
            case .success(let response): response.statusCode
            case .failure(let error): error.statusCode ?? -1
            }
        }
        #expect(statuses == codes)
        #expect(results.map { (try? $0.get()) != nil } == [true, false, true, false, true])
    }

    @Test("A chain passes a value from one step's JSON to the next request", arguments: HTTPBin.transports)
    func chain(_ transport: TransportCase) async throws {
        let chain = RequestChain {
            Step("issue") { _ in
                Request {
                    Url(HTTPBin.url("/anything")); Using(transport.transport); Query("token", value: "t-42")
                }
            }
            Step("use") { previous in
                let token = try previous.json("issue").args.token.string ?? ""
                return Request {
                    Url(HTTPBin.url("/bearer")); Using(transport.transport); Header.Authorization(.bearer(token))
                }
            }
        }
        let responses = try await chain.send()
        #expect(try responses.json("use").token.string == "t-42")
        #expect(try responses.json("use").authenticated.bool == true)
    }

    @Test("Polling sends If-None-Match and reports httpbin's 304 as unchanged", arguments: HTTPBin.transports)
    func conditionalPolling(_ transport: TransportCase) async throws {
        let request = Request {
            Url(HTTPBin.url("/etag/v7")); Using(transport.transport)
        }
        var kinds: [String] = []
        for await result in request.poll(every: .milliseconds(50), maxCount: 3) {
            switch result {
            case .changed(let response): kinds.append("changed \(response.statusCode)")
            case .unchanged: kinds.append("unchanged")
            case .failed(let error): kinds.append("failed \(error.kind)")
            }
        }
        #expect(kinds == ["changed 200", "unchanged", "unchanged"])
    }
}

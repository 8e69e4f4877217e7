import Foundation
import RequestKitDSL
import RequestKitModel
import Testing

@Suite("Invalid requests")
struct RequestProblemTests {
    private func problems(@RequestBuilder _ content: () -> any RequestComponent) throws -> [RequestProblem] {
        let error = try #require(throws: RequestError.self) { try Request(content).urlRequest() }
        #expect(error.kind == .invalidRequest)
        return error.problems
    }

    @Test("A request without a Url, or with two, is reported")
    func urlCount() throws {
        #expect(try problems { Method(.get) }.map(\.kind) == [.missingURL])
        #expect(
            try problems {
                Url("http://a"); Url("http://b")
            }.map(\.kind) == [.multipleURLs])
    }

    @Test("Malformed URLs, missing hosts, bad ports and unsupported schemes are reported")
    func malformedURLs() throws {
        #expect(try problems { Url("http://exa mple.com/") }.map(\.kind) == [.malformedURL])
        #expect(try problems { Url("ftp://example.com/file") }.map(\.kind) == [.unsupportedScheme])
        #expect(try problems { Url("example.com/path") }.map(\.kind) == [.unsupportedScheme])
        #expect(try problems { Url("http:///path") }.map(\.kind) == [.malformedURL])
        #expect(try problems { Url("http://a.com:99999/") }.map(\.kind) == [.malformedURL])
    }

    @Test("A percent-encoded host must decode to text; one that does is kept as written")
    func percentEncodedHosts() throws {
        let found = try problems { Url("http://127.0.0.1%8080/a") }
        #expect(found.map(\.kind) == [.malformedURL])
        #expect(
            found.first?.message
                == "the URL \"http://127.0.0.1%8080/a\" has a host whose percent-encoding is not UTF-8 text")
        let built = try Request { Url("http://ex%61mple.com/a") }.urlRequest()
        #expect(built.url?.absoluteString == "http://ex%61mple.com/a")
        #expect(built.url?.host == "example.com")
    }

    @Test("CR, LF and NUL in a header value are rejected, never sent")
    func headerInjection() throws {
        let found = try problems {
            Url("http://h")
            Header.Any(key: "X-A", value: "ok\r\nInjected: yes")
            Header.Any(key: "X-B", value: "nul\0byte")
            Header.Any(key: "X-C", value: "tab\tis fine")
        }
        #expect(found.map(\.kind) == [.invalidHeaderValue, .invalidHeaderValue])
        #expect(found[0].message == "the value of header X-A contains a forbidden control character (0x0D)")
        #expect(found[1].message == "the value of header X-B contains a forbidden control character (0x00)")
    }

    @Test("Header names must be tokens")
    func headerNames() throws {
        let found = try problems {
            Url("http://h")
            Header.Any(key: "Bad Name", value: "1")
            Header.Any(key: "X:Colon", value: "1")
            Header.Any(key: "", value: "1")
        }
        #expect(found.map(\.kind) == [.invalidHeaderName, .invalidHeaderName, .invalidHeaderName])
    }

    @Test("A body on GET or HEAD is reported")
    func bodyOnGet() throws {
        #expect(
            try problems {
                Url("http://h"); Body("x")
            }.map(\.kind) == [.bodyNotAllowed])
        #expect(
            try problems {
                Url("http://h"); Method(.head); Body("x")
            }.map(\.kind) == [.bodyNotAllowed])
    }

    @Test("Method tokens are validated")
    func badMethod() throws {
        #expect(
            try problems {
                Url("http://h"); Method("GET ME")
            }.map(\.kind) == [.invalidMethod])
        #expect(
            try problems {
                Url("http://h"); Method(.custom(""))
            }.map(\.kind) == [.invalidMethod])
    }

    @Test("Every problem is collected into one error whose description lists them all")
    func allProblemsListed() throws {
        let error = try #require(throws: RequestError.self) {
            try Request {
                Url("ftp://a")
                Url("http://b")
                Method("BAD METHOD")
                Header.Any(key: "X", value: "a\nb")
                Timeout(-1)
            }.urlRequest()
        }
        #expect(
            error.description == """
                Invalid request: 5 problems
                  - a timeout must be a positive number, not -1.0
                  - the request has 2 Url components; it needs one
                  - the URL "ftp://a" has scheme "ftp"; only http, https, http+unix and https+unix are supported
                  - the method "BAD METHOD" is not a valid HTTP token
                  - the value of header X contains a forbidden control character (0x0A)
                """)
    }

    @Test("An encoding failure is an error, never a missing body")
    func encodingFailure() throws {
        let found = try problems {
            Url("http://h")
            Method(.post)
            Body(["value": Double.nan])
        }
        #expect(found.map(\.kind) == [.bodyEncodingFailed])
        #expect(found[0].message.hasPrefix("the Dictionary<String, Double> body could not be encoded as JSON"))
    }

    @Test("A declared Content-Length that disagrees with the body is reported")
    func contentLengthMismatch() throws {
        let found = try problems {
            Url("http://h"); Method(.post); Header.ContentLength(3); Body("four")
        }
        #expect(found.map(\.message) == ["Content-Length says 3 but the body has 4 bytes"])
    }

    @Test("A declared Content-Length on a request without a body is reported: no transport could send it")
    func contentLengthWithoutBody() throws {
        let found = try problems {
            Url("http://h"); Header.ContentLength(16)
        }
        #expect(found.map(\.kind) == [.invalidComponent])
        #expect(found.map(\.message) == ["Content-Length says 16 but the request has no body"])
        let posted = try problems {
            Url("http://h"); Method(.post); Header.ContentLength(5)
        }
        #expect(posted.map(\.message) == ["Content-Length says 5 but the request has no body"])
        // Zero is what a request without a body has: nothing to report.
        #expect(throws: Never.self) {
            try Request {
                Url("http://h"); Header.ContentLength(0)
            }.urlRequest()
        }
        let shown = Request {
            Url("http://h"); Header.ContentLength(16)
        }.cURL
        #expect(shown == "# Invalid request: 1 problem\n#   - Content-Length says 16 but the request has no body")
    }
}

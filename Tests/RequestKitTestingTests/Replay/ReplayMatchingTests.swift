import Foundation
import RequestKitModel
import Testing

@testable import RequestKitTesting

@Suite("Replay matching: which recorded request answers a sent one")
struct ReplayMatchingTests {
    private static func request(
        _ url: String, method: String = "GET", headers: HTTPHeaders = [:], body: String = ""
    ) -> RecordedRequest {
        RecordedRequest(
            method: method, url: URL(string: url) ?? URL(fileURLWithPath: "/"), headers: headers, body: Data(body.utf8))
    }

    @Test(
        "The default rules, difference by difference",
        arguments: [
            ("GET", "http://a.test/x?b=2&a=1", "", "GET", "http://a.test/x?a=1&b=2", "", [String]()),
            (
                "GET", "http://a.test/x?a=1&a=1", "", "GET", "http://a.test/x?a=1", "",
                ["query: recorded a=1&a=1, sent a=1"]
            ),
            ("GET", "http://A.test:80/x", "", "get", "http://a.test/x", "", []),
            (
                "GET", "http://a.test/x", "", "POST", "https://a.test:8443/y", "",
                [
                    "method: recorded GET, sent POST", "scheme: recorded http, sent https",
                    "port: recorded 80, sent 8443",
                    "path: recorded /x, sent /y",
                ]
            ),
            (
                "POST", "http://a.test/x", #"{"a":1,"b":[1,2]}"#, "POST", "http://a.test/x",
                #"{ "b": [1, 2], "a": 1.0 }"#, []
            ),
            (
                "POST", "http://a.test/x", #"{"a":1}"#, "POST", "http://a.test/x", #"{"a":2}"#,
                [
                    #"body: recorded 7 bytes "{\"a\":1}", sent 7 bytes "{\"a\":2}""#
                ]
            ),
        ])
    func defaults(
        recordedMethod: String, recordedURL: String, recordedBody: String, sentMethod: String, sentURL: String,
        sentBody: String, expected: [String]
    ) {
        let differences = ReplayMatching().differences(
            recorded: Self.request(recordedURL, method: recordedMethod, body: recordedBody),
            sent: Self.request(sentURL, method: sentMethod, body: sentBody))
        #expect(differences == expected)
    }

    @Test("Ignored query items, named headers, all headers but some, and a custom matcher")
    func configured() {
        let recorded = Self.request("http://a.test/x?page=1&ts=100", headers: ["Accept": "text/plain", "X-Trace": "1"])
        let sent = Self.request(
            "http://a.test/x?ts=200&page=1", headers: ["Accept": "application/json", "X-Trace": "2"])
        #expect(ReplayMatching(ignoredQueryItems: ["ts"]).differences(recorded: recorded, sent: sent) == [])
        #expect(
            ReplayMatching(ignoredQueryItems: ["ts"], headers: .named("accept")).differences(
                recorded: recorded, sent: sent) == ["header accept: recorded text/plain, sent application/json"])
        #expect(
            ReplayMatching(ignoredQueryItems: ["ts"], headers: .all(except: "Accept")).differences(
                recorded: recorded, sent: sent) == ["header x-trace: recorded 1, sent 2"])
        let custom = ReplayMatching(ignoredQueryItems: ["ts"]) { recorded, sent in
            recorded.headers["X-Trace"] == sent.headers["X-Trace"]
        }
        #expect(custom.differences(recorded: recorded, sent: sent) == ["the custom matcher refused it"])
    }

    @Test("Identical requests take the recorded entries in order; the last repeats only when marked")
    func cursor() {
        var cursor = ReplayCursor(count: 4)
        #expect(cursor.take([1, 3], repeats: { _ in false }) == 1)
        #expect(cursor.take([1, 3], repeats: { _ in false }) == 3)
        #expect(cursor.take([1, 3], repeats: { _ in false }) == nil)
        #expect(cursor.take([1, 3], repeats: { $0 == 3 }) == 3)
        #expect(cursor.take([1, 3], repeats: { $0 == 3 }) == 3)
        #expect(cursor.take([0], repeats: { _ in true }) == 0)
        #expect(cursor.used == [true, true, false, true])
    }
}

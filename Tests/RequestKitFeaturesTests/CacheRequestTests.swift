import Foundation
import Testing

@testable import RequestKitFeatures

@Suite("CacheRequest: a request as the cache sees it")
struct CacheRequestTests {
    typealias F = CacheFixtures

    @Test(
        "The method is upper-cased, ASCII or not",
        arguments: [
            ("GET", "GET"), ("get", "GET"), ("Patch", "PATCH"), ("M-SEARCH", "M-SEARCH"), ("straße", "STRASSE"),
        ])
    func method(_ given: String, _ expected: String) {
        #expect(F.request(method: given).method == expected)
    }

    @Test("The primary key is the URL without its fragment")
    func key() {
        let url = URL(string: "http://127.0.0.1:1/a?b=1#part") ?? F.url
        #expect(CacheRequest.key(for: url) == "http://127.0.0.1:1/a?b=1")
        #expect(CacheRequest.key(for: F.url) == F.url.absoluteString)
    }
}

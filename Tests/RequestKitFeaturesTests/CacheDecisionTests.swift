import Foundation
import RequestKitModel
import Testing

@testable import RequestKitFeatures

@Suite("CacheDecision: what the cache does with a request, by the rules of RFC 9111 §4")
struct CacheDecisionTests {
    typealias F = CacheFixtures

    /// The decision's kind as text, for tables: `hit`, `stale`, `validate`, `validate+swr`, `validate+sie`,
    /// `forward`, `504`.
    static func kind(_ decision: CacheDecision) -> String {
        switch decision {
        case .use(_, let status): status.name
        case .validate(_, let options):
            "validate" + (options.mayServeWhileRevalidating ? "+swr" : "") + (options.mayServeOnError ? "+sie" : "")
        case .forward: "forward"
        case .unsatisfiable: "504"
        }
    }

    @Test(
        "Response directives and age decide between use and validation",
        arguments: [
            ("max-age=60", 30.0, "hit"),
            ("max-age=60", 60, "validate"),
            ("max-age=60, no-cache", 1, "validate"),
            ("no-cache", 0, "validate"),
            ("max-age=60, stale-while-revalidate=30", 80, "validate+swr"),
            ("max-age=60, stale-while-revalidate=30", 100, "validate"),
            ("max-age=60, stale-if-error=30", 80, "validate+sie"),
            ("max-age=60, stale-if-error=30", 100, "validate"),
            ("max-age=60, must-revalidate, stale-if-error=30, stale-while-revalidate=30", 80, "validate"),
            ("max-age=60, stale-while-revalidate=30", 30, "hit"),
        ])
    func responseDirectives(_ control: String, _ seconds: Double, _ expected: String) {
        let stored = F.stored([("Cache-Control", control)])
        #expect(Self.kind(CacheDecision(for: F.request(), stored: [stored], at: F.at(seconds))) == expected)
    }

    @Test(
        "Request directives narrow or widen what is acceptable",
        arguments: [
            ("max-age=10", 5.0, "max-age=60", "hit"),
            ("max-age=10", 20, "max-age=60", "validate"),
            ("min-fresh=30", 20, "max-age=60", "hit"),
            ("min-fresh=30", 40, "max-age=60", "validate"),
            ("max-stale=30", 80, "max-age=60", "stale"),
            ("max-stale=30", 100, "max-age=60", "validate"),
            ("max-stale", 10_000, "max-age=60", "stale"),
            ("max-stale", 10_000, "max-age=60, must-revalidate", "validate"),
            ("no-cache", 1, "max-age=60", "validate"),
            ("only-if-cached", 1, "max-age=60", "hit"),
            ("only-if-cached", 100, "max-age=60", "504"),
            ("only-if-cached, max-stale", 100, "max-age=60", "stale"),
            ("stale-if-error=100", 80, "max-age=60", "validate+sie"),
            ("nothing-to-see-here", 1, "max-age=60", "hit"),
            ("no-store", 1, "max-age=60", "hit"),
        ])
    func requestDirectives(_ requestControl: String, _ seconds: Double, _ responseControl: String, _ expected: String) {
        let stored = F.stored([("Cache-Control", responseControl)])
        let request = F.request([("Cache-Control", requestControl)])
        #expect(Self.kind(CacheDecision(for: request, stored: [stored], at: F.at(seconds))) == expected)
    }

    @Test(
        "Policy rules map onto the directives",
        arguments: [
            (CachePolicy.Rule.useProtocol, 100.0, "validate"),
            (.reloadIgnoringCache, 1, "forward"),
            (.returnCacheElseLoad, 100, "stale"),
            (.returnCacheElseLoad, 1, "hit"),
            (.returnCacheDontLoad, 100, "stale"),
        ])
    func policyRules(_ rule: CachePolicy.Rule, _ seconds: Double, _ expected: String) {
        let stored = F.stored([("Cache-Control", "max-age=60")])
        #expect(Self.kind(CacheDecision(for: F.request(rule: rule), stored: [stored], at: F.at(seconds))) == expected)
    }

    @Test("The method is compared in upper case", arguments: ["GET", "get", "HEAD", "Head", "POST", "pOsT", "PATCH"])
    func methodInUpperCase(_ method: String) throws {
        let url = try #require(URL(string: "http://h/a"))
        #expect(CacheRequest(method: method, url: url, headers: HTTPHeaders()).method == method.uppercased())
    }

    @Test(
        "The primary key is the URL without its fragment",
        arguments: [
            ("http://h/a?q=1#part", "http://h/a?q=1"), ("http://h/a#", "http://h/a"),
            ("http://h/é?x=ü", "http://h/%C3%A9?x=%C3%BC"),
            ("http://h/a?q=1", "http://h/a?q=1"), ("http://h/%23#x#y", "http://h/%23"),
        ])
    func primaryKey(_ text: String, _ key: String) throws {
        let url = try #require(URL(string: text))
        #expect(CacheRequest(method: "GET", url: url, headers: HTTPHeaders()).key == key)
    }

    @Test("With nothing stored: forward, or a 504 for only-if-cached and returnCacheDontLoad")
    func nothingStored() {
        #expect(Self.kind(CacheDecision(for: F.request(), stored: [], at: F.at(0))) == "forward")
        let onlyIfCached = F.request([("Cache-Control", "only-if-cached")])
        #expect(Self.kind(CacheDecision(for: onlyIfCached, stored: [], at: F.at(0))) == "504")
        let dontLoad = F.request(rule: .returnCacheDontLoad)
        #expect(Self.kind(CacheDecision(for: dontLoad, stored: [], at: F.at(0))) == "504")
    }

    @Test("Vary: the variant whose varying fields match the request answers; Vary: * never matches")
    func vary() {
        let json = F.stored(
            [("Cache-Control", "max-age=60"), ("Vary", "Accept")],
            varying: [.init(name: "accept", value: "application/json")])
        let text = F.stored(
            [("Cache-Control", "max-age=60"), ("Vary", "Accept")], varying: [.init(name: "accept", value: nil)])
        let asksJson = F.request([("Accept", " application/json ")])
        guard case .use(let chosen, .hit) = CacheDecision(for: asksJson, stored: [text, json], at: F.at(1)) else {
            Issue.record("expected a hit")
            return
        }
        #expect(chosen == json)
        guard case .use(let other, .hit) = CacheDecision(for: F.request(), stored: [json, text], at: F.at(1)) else {
            Issue.record("expected a hit")
            return
        }
        #expect(other == text)
        let asksXML = F.request([("Accept", "application/xml")])
        #expect(Self.kind(CacheDecision(for: asksXML, stored: [json, text], at: F.at(1))) == "forward")
        let star = F.stored([("Cache-Control", "max-age=60")], varying: [.init(name: "*", value: nil)])
        #expect(Self.kind(CacheDecision(for: F.request(), stored: [star], at: F.at(1))) == "forward")
    }
}

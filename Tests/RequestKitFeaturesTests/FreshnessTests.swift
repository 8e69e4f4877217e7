import Foundation
import Testing

@testable import RequestKitFeatures

@Suite("Freshness: lifetime and age of a stored response (RFC 9111 §4.2)")
struct FreshnessTests {
    typealias F = CacheFixtures

    @Test(
        "The lifetime comes from max-age, then Expires minus Date, then the heuristic where allowed",
        arguments: [
            (200, [("Cache-Control", "max-age=60")], 60.0),
            (200, [("Cache-Control", "max-age=60"), ("Expires", F.httpDate(1000)), ("Date", F.httpDate(0))], 60),
            (200, [("Cache-Control", "s-maxage=60")], 0),
            (200, [("Cache-Control", "max-age=abc")], 0),
            (200, [("Cache-Control", "max-age=-5")], 0),
            (200, [("Expires", F.httpDate(100)), ("Date", F.httpDate(0))], 100),
            (200, [("Expires", F.httpDate(100)), ("Date", F.httpDate(40))], 60),
            (200, [("Expires", "0"), ("Date", F.httpDate(0))], 0),
            (200, [("Expires", F.httpDate(-10)), ("Date", F.httpDate(0))], 0),
            (200, [("Expires", F.httpDate(100))], 100),
            (200, [("Last-Modified", F.httpDate(-1000)), ("Date", F.httpDate(0))], 100),
            (404, [("Last-Modified", F.httpDate(-1000)), ("Date", F.httpDate(0))], 100),
            (302, [("Last-Modified", F.httpDate(-1000)), ("Date", F.httpDate(0))], 0),
            (302, [("Last-Modified", F.httpDate(-1000)), ("Cache-Control", "public")], 100),
            (200, [("Last-Modified", F.httpDate(-1000)), ("Expires", F.httpDate(5))], 5),
            (200, [], 0),
        ])
    func lifetime(_ status: Int, _ fields: [(String, String)], _ expected: Double) {
        #expect(Freshness.lifetime(of: F.stored(status: status, fields)) == expected)
    }

    @Test("The age adds the Age field, the apparent age, the response delay and the time resident")
    func age() {
        var stored = F.stored([("Age", "30")])
        #expect(Freshness.age(of: stored, at: F.at(0)) == 30)
        #expect(Freshness.age(of: stored, at: F.at(10)) == 40)
        stored.requestTime = F.at(-5)
        #expect(Freshness.age(of: stored, at: F.at(10)) == 45)
        let dated = F.stored([("Date", F.httpDate(-100))])
        #expect(Freshness.age(of: dated, at: F.at(0)) == 100)
        let future = F.stored([("Date", F.httpDate(100)), ("Age", "bogus")])
        #expect(Freshness.age(of: future, at: F.at(1)) == 1)
    }

    @Test("Fresh while the age is below the lifetime; staleness counts from the lifetime")
    func isFresh() {
        let stored = F.stored([("Cache-Control", "max-age=60")])
        #expect(Freshness(of: stored, at: F.at(59)).isFresh)
        #expect(!Freshness(of: stored, at: F.at(60)).isFresh)
        #expect(Freshness(of: stored, at: F.at(75)).staleness == 15)
    }
}

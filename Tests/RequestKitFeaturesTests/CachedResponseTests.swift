import Foundation
import Testing

@testable import RequestKitFeatures

@Suite("CachedResponse: a value, whose copies share their parts until one changes")
struct CachedResponseTests {
    typealias F = CacheFixtures

    @Test("A change to a copy leaves the original as it was, its parsed fields included")
    func copiesAreIndependent() {
        let original = F.stored([("Cache-Control", "max-age=60"), ("ETag", "\"a\"")])
        var copy = original
        copy.headers.set("Cache-Control", "no-cache")
        copy.body = Data("changed".utf8)
        copy.requestTime = F.at(-5)
        copy.status = 203
        #expect(original.headers["Cache-Control"] == "max-age=60" && original.directives.maxAge == .valid(60))
        #expect(!original.directives.noCache && copy.directives.noCache && copy.directives.maxAge == .absent)
        #expect(String(decoding: original.body, as: UTF8.self) == "stored" && original.status == 200)
        #expect(original.requestTime == F.received && copy.requestTime == F.at(-5))
        #expect(original != copy)
    }

    @Test("Responses made apart with the same parts are equal and hash alike; any part tells them apart")
    func equality() {
        let first = F.stored([("Cache-Control", "max-age=60")])
        let second = F.stored([("Cache-Control", "max-age=60")])
        #expect(first == second && first.hashValue == second.hashValue)
        var other = second
        other.responseTime = F.at(1)
        #expect(first != other)
        var varying = second
        varying.varyingFields = [.init(name: "accept", value: "text/plain")]
        #expect(first != varying)
        #expect(Set([first, second, other]).count == 2)
    }
}

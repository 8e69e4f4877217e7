import Foundation
import Testing

@testable import RequestKitFeatures

@Suite("CachedResponse.answer: what a stored response gives a request")
struct CachedResponseAnswerTests {
    typealias F = CacheFixtures

    @Test(
        "Age is the current age in whole seconds, capped at 2^31 - 1",
        arguments: [
            (0.0, [(String, String)](), "0"), (7.9, [], "7"), (10, [], "10"), (12_345, [], "12345"),
            (5, [("Age", "100")], "105"), (1e12, [], "2147483647"),
        ])
    func age(_ seconds: Double, _ fields: [(String, String)], _ expected: String) {
        let answer = F.stored(fields).answer(to: F.request(), status: .hit, at: F.at(seconds))
        #expect(answer.headers.values(for: "Age") == [expected])
    }

    @Test("The stored status, fields, body and URL are handed back, marked with the status given")
    func storedResponse() {
        let stored = F.stored([("Content-Type", "text/plain"), ("Age", "3"), ("ETag", "\"v1\"")])
        let answer = stored.answer(to: F.request(), status: .stale, at: F.at(1))
        #expect(answer.statusCode == 200 && answer.cacheStatus == .stale)
        #expect(answer.headers.fields.map(\.name) == ["Content-Type", "Age", "ETag"])
        #expect(answer.headers["Age"] == "4" && String(decoding: answer.body, as: UTF8.self) == "stored")
        #expect(answer.url == F.url)
        let head = stored.answer(to: F.request(method: "HEAD"), status: .hit, at: F.at(1))
        #expect(head.statusCode == 200 && head.body.isEmpty && head.headers["Content-Type"] == "text/plain")
    }

    @Test("Without a stored Age field the answer's comes last; a stored one is replaced where it stands, once")
    func agePosition() {
        let plain = F.stored([("Content-Type", "text/plain"), ("ETag", "\"v1\"")])
        let answer = plain.answer(to: F.request(), status: .hit, at: F.at(2))
        #expect(answer.headers.fields.map(\.name) == ["Content-Type", "ETag", "Age"] && answer.headers["Age"] == "2")
        let twice = F.stored([("age", "10"), ("Content-Type", "text/plain"), ("Age", "20")])
        let replaced = twice.answer(to: F.request(), status: .hit, at: F.at(2))
        #expect(replaced.headers.fields.map(\.name) == ["Age", "Content-Type"] && replaced.headers["Age"] == "12")
    }

    @Test("Answers of one stored response carry the age at their own moment, whatever was answered before")
    func ageOfEachAnswer() {
        let stored = F.stored([("Content-Type", "text/plain"), ("ETag", "\"v1\"")])
        let moments: [(Double, String)] = [(3.2, "3"), (3.9, "3"), (4.1, "4"), (3.5, "3"), (60, "60"), (60.5, "60")]
        for (seconds, expected) in moments {
            let answer = stored.answer(to: F.request(), status: .hit, at: F.at(seconds))
            #expect(answer.headers.fields.map(\.name) == ["Content-Type", "ETag", "Age"])
            #expect(answer.headers.values(for: "Age") == [expected], "at \(seconds) s")
        }
        // A 304 made from the same age leaves the next full answer whole.
        let notModified = stored.answer(to: F.request([("If-None-Match", "\"v1\"")]), status: .hit, at: F.at(60))
        #expect(notModified.statusCode == 304 && notModified.headers["Age"] == "60")
        let again = stored.answer(to: F.request(), status: .hit, at: F.at(60))
        #expect(again.headers.fields.map(\.name) == ["Content-Type", "ETag", "Age"] && again.body.count == 6)
    }

    @Test("Answers made at once from one stored response each carry their own age")
    func concurrentAnswers() async {
        let stored = F.stored([("Content-Type", "text/plain")])
        let ages = await withTaskGroup(of: (Int, [String]).self) { group in
            for second in 0..<64 {
                group.addTask {
                    let answer = stored.answer(to: F.request(), status: .hit, at: F.at(Double(second % 8)))
                    return (second % 8, answer.headers.values(for: "Age"))
                }
            }
            var ages: [(Int, [String])] = []
            for await pair in group { ages.append(pair) }
            return ages
        }
        #expect(ages.count == 64)
        for (second, values) in ages { #expect(values == [String(second)]) }
    }

    @Test("A request that already has it gets a 304 without a body or the fields a 304 must not carry")
    func notModified() {
        let stored = F.stored([("ETag", "\"v1\""), ("Content-Length", "6"), ("Content-Encoding", "gzip")])
        let answer = stored.answer(to: F.request([("If-None-Match", "\"v1\"")]), status: .hit, at: F.at(1))
        #expect(answer.statusCode == 304 && answer.body.isEmpty)
        #expect(answer.headers["Content-Length"] == nil && answer.headers["Content-Encoding"] == nil)
        #expect(answer.headers["ETag"] == "\"v1\"" && answer.headers["Age"] == "1")
        let other = stored.answer(to: F.request([("If-None-Match", "\"v2\"")]), status: .hit, at: F.at(1))
        #expect(other.statusCode == 200)
    }

    @Test("A range of a stored 200 is a 206 with its bytes and Content-Range")
    func range() {
        let stored = F.stored([("Content-Length", "6")])
        let answer = stored.answer(to: F.request([("Range", "bytes=1-3")]), status: .hit, at: F.at(0))
        #expect(answer.statusCode == 206 && String(decoding: answer.body, as: UTF8.self) == "tor")
        #expect(answer.headers["Content-Range"] == "bytes 1-3/6" && answer.headers["Content-Length"] == nil)
    }

    @Test("Decimal text of an integer", arguments: [0, 5, 9, 10, 99, 100, 2_147_483_647, Int.max, -1, Int.min])
    func decimal(_ value: Int) {
        #expect(CachedResponse.decimal(value) == String(value))
    }
}

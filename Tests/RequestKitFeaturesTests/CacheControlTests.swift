import RequestKitDSL
import Testing

@testable import RequestKitFeatures

@Suite("CacheControl: directives read leniently, first occurrence wins, never a crash")
struct CacheControlTests {
    @Test(
        "Each field value parses into these directives",
        arguments: [
            ("max-age=60", [CacheControl.Directive(name: "max-age", value: "60")]),
            ("MAX-AGE=60, No-Cache", [.init(name: "max-age", value: "60"), .init(name: "no-cache", value: nil)]),
            (
                #"no-cache="Set-Cookie, X-A", private"#,
                [.init(name: "no-cache", value: "Set-Cookie, X-A"), .init(name: "private", value: nil)]
            ),
            (#"max-age="3600""#, [.init(name: "max-age", value: "3600")]),
            (" , ,max-age = 5 ,, ", [.init(name: "max-age", value: "5")]),
            ("max age=5, public", [.init(name: "public", value: nil)]),
            (#"ext="unterminated, max-age=5"#, []),
            (#"a="q\"uote", b"#, [.init(name: "a", value: #"q"uote"#), .init(name: "b", value: nil)]),
            ("=5, =, ,", []),
            ("max-age=5 junk, public", [.init(name: "public", value: nil)]),
            ("", []),
        ])
    func parses(_ value: String, _ expected: [CacheControl.Directive]) {
        #expect(CacheControl([value]).directives == expected)
    }

    @Test(
        "Delta-seconds: digits only, capped at 2^31",
        arguments: [
            ("0", CacheControl.Seconds.valid(0)), ("3600", .valid(3600)), ("-1", .invalid), ("1.5", .invalid),
            ("", .invalid), ("abc", .invalid), ("99999999999999999999999", .valid(2_147_483_648)),
            ("2147483648", .valid(2_147_483_648)), ("2147483647", .valid(2_147_483_647)),
        ])
    func deltaSeconds(_ text: String, _ expected: CacheControl.Seconds) {
        #expect(CacheControl.deltaSeconds(text) == expected)
    }

    @Test("The first occurrence of a directive counts, across fields too")
    func firstOccurrence() {
        #expect(CacheControl(["max-age=1800, max-age=1"]).seconds("max-age") == .valid(1800))
        #expect(CacheControl(["max-age=1", "max-age=1800"]).seconds("max-age") == .valid(1))
        #expect(CacheControl(["max-stale"]).seconds("max-stale") == .noValue)
        #expect(CacheControl(["public"]).seconds("max-age") == .absent)
    }

    @Test("Arbitrary bytes never crash the parser")
    func arbitraryBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"=,"\ a-z09\#t;"#.utf8) + [0, 0xFF, 0xC3]
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0..<24, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator) ?? 0
            }
            let control = CacheControl([String(decoding: bytes, as: UTF8.self)])
            #expect(control.directives.allSatisfy { !$0.name.isEmpty })
        }
    }
}

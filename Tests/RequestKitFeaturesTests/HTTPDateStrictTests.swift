import Foundation
import Testing

@testable import RequestKitFeatures
@testable import RequestKitModel

@Suite("HTTPDateFormat.strictDate: the three HTTP-date forms and nothing else")
struct HTTPDateStrictTests {
    static let reference = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test(
        "The forms RFC 9110 allows",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            " Sun, 06 Nov 1994 08:49:37 GMT ", "sun, 06 nov 1994 08:49:37 gmt",
        ])
    func valid(_ text: String) {
        #expect(
            HTTPDateFormat.strictDate(from: text, now: Date(timeIntervalSince1970: 1_700_000_000)) == Self.reference)
    }

    @Test(
        "Anything else is not a date",
        arguments: [
            "Thu, 18 Aug 2050 02:01:18 UTC", "Thu, 18 Aug 2050 02:01:18 AEST", "Thu, 18 Aug 50 02:01:18 GMT",
            "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug  2050 02:01:18 GMT", "Thu, 18-Aug-2050 02:01:18 GMT",
            "Thu, 18 Aug 2050 02.01.18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT", "Thu, 31 Feb 2050 02:01:18 GMT",
            "Thu, 18 Aug 2050 24:01:18 GMT", "0", "", "Funday, 18 Aug 2050 02:01:18 GMT",
            "Thu, 18 Aug 2050 02:01:18 GMT, Thu, 18 Aug 2050 02:01:19 GMT", "Thu, 18 Foo 2050 02:01:18 GMT",
        ])
    func invalid(_ text: String) {
        #expect(HTTPDateFormat.strictDate(from: text) == nil)
    }

    @Test("A two-digit year more than 50 years ahead belongs to the past century")
    func twoDigitYear() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)  // 2023
        let soon = HTTPDateFormat.strictDate(from: "Thursday, 18-Aug-50 02:01:18 GMT", now: now)
        let past = HTTPDateFormat.strictDate(from: "Monday, 18-Aug-80 02:01:18 GMT", now: now)
        #expect(soon == HTTPDateFormat.strictDate(from: "Thu, 18 Aug 2050 02:01:18 GMT"))
        #expect(past == HTTPDateFormat.strictDate(from: "Mon, 18 Aug 1980 02:01:18 GMT"))
    }

    @Test("It agrees with the lenient parser on valid dates across the years")
    func agreesWithFormatter() {
        for step in stride(from: -2_000_000_000.0, to: 4_000_000_000.0, by: 97_654_321) {
            let date = Date(timeIntervalSince1970: step.rounded())
            #expect(HTTPDateFormat.strictDate(from: HTTPDateFormat.string(from: date)) == date)
        }
    }
}

@Suite("Cache field values: Age, byte ranges, Vary values")
struct CacheFieldValueTests {
    @Test(
        "Age: the leading digits of the first element, or ignored",
        arguments: [
            ("7200", 7200.0), ("7200, 0", 7200), ("0, 7200", 0), ("7200;foo=bar", 7200), ("7200.0", 0), ("abc", 0),
            ("-10", 0), (" 30 ", 30),
        ])
    func age(_ value: String, _ expected: Double) {
        #expect(CachedResponse.Fields.age(from: value) == expected)
    }

    @Test(
        "Byte ranges resolve against the length; what a cache leaves to the server is nil",
        arguments: [
            ("bytes=0-1", 10, ByteRange(first: 0, last: 1) as ByteRange?),
            ("bytes=5-", 10, ByteRange(first: 5, last: 9)),
            ("bytes=-3", 10, ByteRange(first: 7, last: 9)), ("bytes=-30", 10, ByteRange(first: 0, last: 9)),
            ("bytes=8-20", 10, ByteRange(first: 8, last: 9)), ("bytes=10-", 10, nil), ("bytes=0-1,3-4", 10, nil),
            ("items=0-1", 10, nil), ("bytes=3-1", 10, nil), ("bytes=-0", 10, nil), ("bytes=a-b", 10, nil),
        ])
    func byteRange(_ value: String, _ length: Int, _ expected: ByteRange?) {
        #expect(ByteRange(value, length: length) == expected)
    }

    @Test("Vary values: whitespace around elements removed, language and coding names without case")
    func varyValues() {
        let request = CacheFixtures.request([
            ("Accept-Language", "eN ,  De"), ("Accept", "Text/Plain, a"), ("Accept-Encoding", "GZip, br"),
        ])
        #expect(request.normalizedValue(of: "accept-language") == "de,en")
        #expect(request.normalizedValue(of: "Accept") == "Text/Plain,a")
        #expect(request.normalizedValue(of: "accept-encoding") == "gzip,br")
        #expect(request.normalizedValue(of: "X-Missing") == nil)
    }

    @Test(
        "Accept-Language: ranges in order of weight then name, weights in thousandths; what does not parse is nil",
        arguments: [
            ("en, de", "de,en" as String?), ("de, en", "de,en"), (" EN ,de ;q=1.0", "de,en"),
            ("fr;q=0.5, de;q=1", "de,fr;q=500"), ("en;q=0.123,*;q=0", "en;q=123,*;q=0"),
            ("de-CH, de;q=0.9", "de-ch,de;q=900"),
            ("en;q=1.5", nil), ("en;q=2", nil), ("en;q=0.1234", nil), ("en;x=1", nil), ("en;q=0.5;x", nil),
            ("e n", nil), ("", nil), (",", nil),
        ])
    func languagePreferences(_ value: String, _ expected: String?) {
        #expect(LanguagePreferences(value)?.normalized == expected)
    }

    @Test(
        "Accept-Language selects a stored Content-Language only when it is the one heaviest range",
        arguments: [
            ("fr;q=0.5, de;q=1.0", "de", true), ("de", "DE", true), ("de;q=0.2, fr;q=0.1", "de", true),
            ("de, fr", "de", false), ("fr;q=0.5, de", "fr", false), ("de-ch", "de", false), ("*", "*", false),
            ("de;q=0", "de", false), ("de", "de, fr", false),
        ])
    func languageSelection(_ accept: String, _ contentLanguage: String, _ selects: Bool) {
        let request = CacheFixtures.request([("Accept-Language", accept)])
        #expect(request.selectsLanguage(contentLanguage) == selects)
    }
}

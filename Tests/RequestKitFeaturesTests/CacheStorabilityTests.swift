import Testing

@testable import RequestKitFeatures

@Suite("CacheStorability: what a private cache may store (RFC 9111 §3)")
struct CacheStorabilityTests {
    typealias F = CacheFixtures

    @Test(
        "Responses to GET, by status and directives",
        arguments: [
            (200, [("Cache-Control", "max-age=60")], true),
            (200, [], true),
            (200, [("Cache-Control", "no-store, max-age=60")], false),
            (200, [("Cache-Control", "private, max-age=60")], true),
            (200, [("Cache-Control", "no-cache")], true),
            (200, [("Cache-Control", "max-age=60"), ("Vary", "Accept, *")], false),
            (206, [("Cache-Control", "max-age=60")], false),
            (304, [("Cache-Control", "max-age=60")], false),
            (100, [("Cache-Control", "max-age=60")], false),
            (302, [], false),
            (302, [("Cache-Control", "max-age=60")], true),
            (500, [], false),
            (500, [("Expires", "Thu, 01 Jan 2099 00:00:00 GMT")], true),
            (404, [], true),
            (200, [("Cache-Control", "must-understand, no-store, max-age=60")], true),
            (299, [("Cache-Control", "must-understand, max-age=60")], false),
        ])
    func responses(_ status: Int, _ fields: [(String, String)], _ expected: Bool) {
        #expect(CacheStorability.canStore(F.response(status: status, fields), for: F.request()) == expected)
    }

    @Test("Requests: only GET, never with no-store; Authorization only with public, must-revalidate or s-maxage")
    func requests() {
        let response = F.response([("Cache-Control", "max-age=60")])
        #expect(!CacheStorability.canStore(response, for: F.request(method: "POST")))
        #expect(!CacheStorability.canStore(response, for: F.request(method: "HEAD")))
        #expect(!CacheStorability.canStore(response, for: F.request([("Cache-Control", "no-store")])))
        let authorized = F.request([("Authorization", "Bearer x")])
        #expect(!CacheStorability.canStore(response, for: authorized))
        for control in ["public, max-age=60", "max-age=60, must-revalidate", "s-maxage=60"] {
            #expect(CacheStorability.canStore(F.response([("Cache-Control", control)]), for: authorized))
        }
    }
}

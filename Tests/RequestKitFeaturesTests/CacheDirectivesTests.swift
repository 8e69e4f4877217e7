import RequestKitDSL
import RequestKitModel
import Testing

@testable import RequestKitFeatures

@Suite("CacheDirectives: each directive the rules read, looked up once, as CacheControl reads it")
struct CacheDirectivesTests {
    typealias F = CacheFixtures

    @Test(
        "Every looked-up value is what CacheControl gives for the first occurrence",
        arguments: [
            "max-age=60", "MAX-AGE=60, max-age=5", "max-age=abc", "max-age", "min-fresh=30, max-stale",
            "max-stale=45", #"no-cache="Set-Cookie", no-store"#, "must-revalidate, public",
            "only-if-cached, stale-if-error=10", "stale-while-revalidate=30, stale-if-error=-1", "", "private",
        ])
    func agreesWithCacheControl(_ value: String) {
        let control = CacheControl([value])
        let directives = CacheDirectives(control)
        #expect(directives.maxAge == control.seconds("max-age"))
        #expect(directives.minFresh == control.seconds("min-fresh"))
        #expect(directives.maxStale == control.seconds("max-stale"))
        #expect(directives.staleWhileRevalidate == control.seconds("stale-while-revalidate"))
        #expect(directives.staleIfError == control.seconds("stale-if-error"))
        #expect(directives.noCache == control.contains("no-cache"))
        #expect(directives.noStore == control.contains("no-store"))
        #expect(directives.mustRevalidate == control.contains("must-revalidate"))
        #expect(directives.onlyIfCached == control.contains("only-if-cached"))
        #expect(directives.isPublic == control.contains("public"))
    }

    @Test("Headers without Cache-Control have none; several Cache-Control fields are read in order")
    func fromHeaders() {
        #expect(CacheDirectives(["Accept": "text/plain"] as HTTPHeaders) == .none)
        #expect(CacheDirectives.none.maxAge == .absent && !CacheDirectives.none.noCache)
        #expect(CacheDirectives.none == CacheDirectives(CacheControl([String]())))
        let headers = HTTPHeaders([
            HTTPHeader(name: "cache-control", value: "max-age=60"),
            HTTPHeader(name: "Cache-Control", value: "max-age=5, no-cache"),
        ])
        let directives = CacheDirectives(headers)
        #expect(directives.maxAge == .valid(60) && directives.noCache)
    }

    @Test("A stored response's directives follow its fields when a 304 replaces Cache-Control")
    func followStoredFields() {
        let stored = F.stored([("Cache-Control", "max-age=10, must-revalidate"), ("ETag", "\"a\"")])
        #expect(stored.directives.maxAge == .valid(10) && stored.directives.mustRevalidate)
        #expect(CacheDecisionTests.kind(CacheDecision(for: F.request(), stored: [stored], at: F.at(20))) == "validate")
        let freshened = stored.freshened(
            with: ["Cache-Control": "max-age=600"], requestTime: F.at(20), responseTime: F.at(20))
        #expect(freshened.directives.maxAge == .valid(600) && !freshened.directives.mustRevalidate)
        #expect(CacheDecisionTests.kind(CacheDecision(for: F.request(), stored: [freshened], at: F.at(30))) == "hit")
    }

    @Test("A request's directives are read from its headers once it is a CacheRequest")
    func requestDirectives() {
        let request = F.request([("Cache-Control", "no-store, only-if-cached, max-stale=30")])
        #expect(request.forbidsStoring && request.isOnlyIfCached && request.maxStale == 30)
        #expect(!request.requiresValidation)
        #expect(!F.request().forbidsStoring && !F.request().isOnlyIfCached && F.request().maxStale == nil)
    }
}

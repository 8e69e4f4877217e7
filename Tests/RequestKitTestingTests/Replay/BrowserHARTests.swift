import Foundation
import RequestKitDSL
import RequestKitJSON
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Recording: a HAR exported from a browser replays, and every cassette has HAR 1.2's structure", .wallClock)
struct BrowserHARTests {
    @Test("A browser's HAR replays: the redirect is followed, compressed bodies arrive decoded, images as bytes")
    func browserHARReplays() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        try Data(BrowserHAR.text.utf8).write(to: folder.cassette("browser.har"))
        let player = try folder.transport("browser.har", mode: .replayOnly, base: MockTransport())

        let home = try await Request {
            Url("https://shop.example/"); Using(player)
        }.send()
        #expect(home.statusCode == 200)
        #expect(home.url?.absoluteString == "https://shop.example/home")
        #expect(String(decoding: home.body, as: UTF8.self) == BrowserHAR.html)
        #expect(home.headers[":path"] == nil)

        let products = try await Request {
            Url("https://shop.example/api/products?sort=price&page=1"); Using(player)
        }.string()
        #expect(products == BrowserHAR.products)
        #expect(
            try await Request {
                Url("https://shop.example/logo.png"); Using(player)
            }.data() == BrowserHAR.logo)

        let blocked = await #expect(throws: RequestError.self) {
            try await Request {
                Url("https://ads.example/track.js"); Using(player)
            }.send()
        }
        #expect(blocked?.detail == "the recorded request got no response (status 0)")

        let cart = try await Request {
            Url("https://shop.example/api/cart"); Method(.post); Using(player)
            Body(json: ["qty": 2, "sku": "A-1"])
        }.send()
        #expect(cart.statusCode == 201)
        #expect(cart.body == Data("{\"items\":1}\n\n".utf8))
    }

    @Test("The browser's HAR and RequestKit's own cassettes conform to HAR 1.2")
    func schema() async throws {
        #expect(HARSchema.problems(in: Data(BrowserHAR.text.utf8)) == [])

        let folder = try CassetteFolder()
        defer { folder.remove() }
        let server = try TestServer()
        let recorder = try folder.transport(
            "all.har", mode: .recordAll, configuration: .init(largeBodyThreshold: 1000))
        _ = try await Request {
            Url(server.url("/anything?a=1&a=2")); Method(.post); Body(["x": 1]); Using(recorder)
        }
        .send()
        for try await _ in try await Request({
            Url(server.url("/stream/2")); Using(recorder)
        }).stream() {}
        _ = try await Request {
            Url(server.url("/bytes/5000?seed=1")); Using(recorder)
        }.data()
        _ = try await Request {
            Url(server.url("/redirect/1")); Using(recorder)
        }.send()
        let refusing = try RefusingPort()
        _ = try? await Request {
            Url(refusing.url("/")); Using(recorder)
        }.send()
        await server.shutdown()
        let recorded = try Data(contentsOf: folder.cassette("all.har"))
        #expect(HARSchema.problems(in: recorded) == [])
        let entries = try Json(parsing: recorded)["log"]["entries"].array ?? []
        #expect(entries.count == 6)
        #expect(entries.map { $0.response.status.int ?? -1 } == [200, 200, 200, 302, 200, 0])
    }

    @Test("The schema check names what a broken HAR lacks or mistypes")
    func schemaFindsProblems() {
        let broken = Data(
            #"""
            {"log": {"version": "1.2", "creator": {"name": "x"}, "entries": [
              {"startedDateTime": "yesterday", "time": 1, "cache": {},
               "request": {"method": "GET", "url": "/relative", "httpVersion": "HTTP/1.1", "cookies": [],
                           "headers": [{"name": "a"}], "queryString": [], "headersSize": -1, "bodySize": 0},
               "response": {"status": "200", "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                            "headers": [], "content": {"size": 1.5, "mimeType": "text/plain"}, "redirectURL": "",
                            "headersSize": -1, "bodySize": 0},
               "timings": {"send": 0, "receive": -2}}]}}
            """#.utf8)
        #expect(
            HARSchema.problems(in: broken) == [
                "log.creator.version is missing",
                "log.entries[0].startedDateTime is not an ISO 8601 date: yesterday",
                "log.entries[0].request.url is not an absolute URL",
                "log.entries[0].request.headers[0].value is missing",
                "log.entries[0].response.status is not an integer",
                "log.entries[0].response.content.size is not an integer",
                "log.entries[0].timings.wait is missing",
                "log.entries[0].timings.receive is below -1",
            ])
    }
}

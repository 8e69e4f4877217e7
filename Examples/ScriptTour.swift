import Foundation
import RequestKit
import RequestKitTesting

/// A script of request blocks with callbacks, as a top-level `main.swift` would hold it: each `call()` returns at
/// once, and the script waits for every call before it ends, so that the handlers run and print.
func scriptTour(_ tour: inout Tour) async {
    let server = tour.server
    tour.section("A script of request blocks with callbacks, waiting for every call before it ends")

    Request { Url(server.url("/json")) }
        .onJson { json in print("   ← slideshow: \(json.slideshow.title.string ?? "?")") }
        .onError { error in print("   ← \(error)") }
        .call()

    Request {
        Url(server.url("/post")); Method(.post); Body(json: ["title": "Write the script"])
    }
    .onStatusCode { code in print("   ← POST answered \(code)") }
    .onError { error in print("   ← \(error)") }
    .call()

    Request { Url(server.url("/status/404")) }
        .onData { _ in print("   ← never: a 404 is not data") }
        .onError { error in print("   ← onError: \(error.statusCode ?? 0)") }
        .call()

    await RequestHandle.waitForAll()
    tour.received("every handler above ran before this line; without the wait, a script would exit first")
}

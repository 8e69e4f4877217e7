#if OpenAPI
import Dispatch
import Foundation
import RequestKitTesting

/// A TestServer answering openapi.yaml's operations under `/api`, on 127.0.0.1 and a random port.
struct NotesServer {
    let server: TestServer
    /// Signalled by a test once it has read the first part of `/api/ticks`; the server writes the second part then.
    let firstTickRead = DispatchSemaphore(value: 0)

    init() throws {
        server = try TestServer()
        let firstTickRead = firstTickRead
        server.route("/api/greetings/{name}", method: "GET") { request in
            let name = request.pathParameters["name"] ?? ""
            return .json(["message": "Hello, \(name)\(request.queryValue("excited") == "true" ? "!" : ".")"])
        }
        server.route("/api/notes", method: "POST") { request in
            guard request.header("Content-Type") == "application/json; charset=utf-8",
                let note = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
                let title = note["title"] as? String
            else {
                return .json(["title": "Bad note", "detail": request.bodyText ?? ""], status: 400)
            }
            var created = TestResponse.json(
                ["id": 7, "title": title, "tags": note["tags"] as? [String] ?? []], status: 201)
            created.headers.append((name: "Location", value: "/api/notes/7"))
            return created
        }
        server.route("/api/notes/{id}", method: "GET") { request in
            let id = request.pathParameters["id"] ?? ""
            guard id == "7" else { return .json(["title": "Not found", "detail": "no note \(id)"], status: 404) }
            return .json(["id": 7, "title": "Groceries", "tags": ["home"]])
        }
        server.route("/api/echo", method: "POST") { request in
            // The body back in three chunks.
            let body = request.body
            let third = body.count / 3
            let chunks = [
                body.prefix(third), body.dropFirst(third).prefix(third), body.dropFirst(2 * third),
            ].map { Data($0) }
            return TestResponse(
                headers: [(name: "Content-Type", value: "application/octet-stream")], body: .chunked(chunks))
        }
        server.route("/api/ticks", method: "GET") { _ in
            TestResponse(
                headers: [(name: "Content-Type", value: "text/plain")],
                body: .stream { writer in
                    try writer.write("first\n")
                    // The second part goes once the client has read the first, which it can only do if the body
                    // streams; after 30 s without that, the server writes that it gave up.
                    let read = firstTickRead.wait(timeout: .now() + 30) == .success
                    try writer.write(read ? "second\n" : "gave up waiting\n")
                })
        }
    }

    /// The generated client's server URL.
    var url: URL { server.url("/api") }
}
#endif

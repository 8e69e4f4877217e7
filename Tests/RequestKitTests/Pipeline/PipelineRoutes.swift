import Foundation
import RequestKit
import RequestKitTesting
import Testing

/// The routes and checks the pipeline matrix suites share.
enum PipelineRoutes {
    /// The longest a cell waits for a verb before reporting it stuck; a passing cell takes a small part of it, even
    /// on a machine many times slower than a quiet one.
    static let bound = Duration.seconds(240)

    /// The JSON the final route answers with, except to an event-stream request.
    static let finalJSON = Data(#"{"ok":true}"#.utf8)

    /// Adds the route every verb can end at: `data: ok` as an event stream to a request that accepts
    /// `text/event-stream`, and `{"ok":true}` otherwise, to any method.
    static func final(on server: TestServer, at path: String) {
        server.route(path) { request in answer(request) }
    }

    /// The final route's answer to `request`.
    static func answer(_ request: TestRequest) -> TestResponse {
        if request.header("Accept")?.contains("text/event-stream") == true {
            return TestResponse(
                status: 200, headers: [("Content-Type", "text/event-stream")], body: .data(Data("data: ok\n\n".utf8)))
        }
        return .json(finalJSON)
    }

    /// The path and query of the built-in `/redirect-to` route, answering with `status` and `Location: location`.
    static func redirect(to location: String, status: Int = 302) -> String {
        var components = URLComponents()
        components.queryItems = [
            URLQueryItem(name: "url", value: location), URLQueryItem(name: "status_code", value: String(status)),
        ]
        let query = components.percentEncodedQuery ?? ""
        return "/redirect-to?" + query.replacingOccurrences(of: "+", with: "%2B")
    }

    /// Records an issue unless `observation` is the final route's answer as `verb` shows it: no error, status 200
    /// where the verb shows a status, and exactly the expected body.
    static func expectFinalAnswer(
        _ observation: Observation, from verb: Verb, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard observation.error == nil, observation.otherFailure == nil else {
            Issue.record("\(context): expected the final answer, got \(observation)", sourceLocation: sourceLocation)
            return
        }
        if verb.showsStatus {
            #expect(observation.status == 200, "\(context): \(observation)", sourceLocation: sourceLocation)
        }
        #expect(observation.body == verb.expectedBody, "\(context): \(observation)", sourceLocation: sourceLocation)
    }
}

import Foundation
import RequestKitComposition
import RequestKitDSL
import RequestKitModel
import RequestKitTesting
import Testing

@Suite("A chain step that fans out into a RequestGroup")
struct FanOutStepTests {
    private struct Todo: Codable, Sendable, Equatable {
        let id: Int
        let title: String
    }

    /// Answers `/list` with `[1, 2, 3]`, `/todos/{id}` with a todo (a 404 for the ids in `missing`), and
    /// `/summary/…` with a 204.
    private func makeTransport(missing: Set<Int> = []) -> MockTransport {
        MockTransport { request in
            let path = request.url?.path ?? ""
            if path == "/list" { return Response(status: .ok, body: Data("[1, 2, 3]".utf8)) }
            if path.hasPrefix("/summary/") { return Response(status: .noContent) }
            guard let id = Int(path.split(separator: "/").last ?? ""), !missing.contains(id) else {
                return Response(status: .notFound, body: Data("no such todo".utf8))
            }
            return Response(status: .ok, body: Data(#"{"id":\#(id),"title":"todo \#(id)"}"#.utf8))
        }
    }

    private func chain(_ transport: MockTransport) -> RequestChain {
        RequestChain {
            Step(
                "list",
                Request {
                    Url("http://api.test/list"); Using(transport)
                })
            Step("details") { previous in
                let ids = try previous.decode("list", as: [Int].self)
                return RequestGroup {
                    for id in ids {
                        Request {
                            Url("http://api.test/todos/\(id)?token=SECRET"); Using(transport)
                        }
                    }
                }
            }
            Step("summary") { previous in
                let todos = try previous.responses("details").map { try $0.decode(Todo.self) }
                return Request {
                    Url("http://api.test/summary/\(todos.map(\.id).map(String.init).joined(separator: ","))")
                    Using(transport)
                }
            }
        }
    }

    @Test("A later step reads the group's responses in the group's order and decodes each")
    func laterStepReadsGroup() async throws {
        let transport = makeTransport()
        let steps = try await chain(transport).send()
        #expect(steps.names == ["list", "details", "summary"])
        #expect(
            try steps.responses("details").map { try $0.decode(Todo.self) } == [
                Todo(id: 1, title: "todo 1"), Todo(id: 2, title: "todo 2"), Todo(id: 3, title: "todo 3"),
            ])
        #expect(transport.requests.last?.url?.path == "/summary/1,2,3")
        #expect(try steps.responses("list").map(\.body) == [Data("[1, 2, 3]".utf8)])
    }

    @Test("Reading a group step as one response says to read its responses")
    func groupStepIsNotOneResponse() async throws {
        let steps = try await chain(makeTransport()).send()
        let error = try #require(throws: RequestError.self) { try steps.response("details") }
        #expect(error.kind == .stepFailed)
        #expect(
            error.description
                == #"stepFailed (step "details" sent a RequestGroup of 3 requests; read their responses with responses("details"))"#
        )
    }

    @Test("A failing request fails the chain, naming the step and the slot: index, method and redacted URL")
    func failureNamesStepAndSlot() async throws {
        let transport = makeTransport(missing: [2])
        let error = try await #require(throws: RequestError.self) { try await chain(transport).send() }
        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 404)
        #expect(
            error.description
                == #"Unacceptable status 404 Not Found for step "details" (slot [1] of the group, "#
                + "GET http://api.test/todos/2?token=<redacted>); body: no such todo")
        #expect(!transport.requests.contains { $0.url?.path.hasPrefix("/summary") == true })
    }

    @Test("A group with no requests fails its step, naming it")
    func emptyGroupFails() async throws {
        let transport = makeTransport()
        let error = try await #require(throws: RequestError.self) {
            try await RequestChain {
                Step("details") { _ in RequestGroup([]) }
            }.send()
        }
        #expect(error.kind == .stepFailed)
        #expect(error.description == #"stepFailed for step "details" (built a RequestGroup with no requests)"#)
        #expect(transport.requests.isEmpty)
    }

    @Test("A failure in a group on its own names its slot, and the results keep their order")
    func groupFailureNamesSlot() async throws {
        let transport = makeTransport(missing: [3])
        let results = try await RequestGroup {
            for id in 1...3 {
                Request {
                    Url("http://api.test/todos/\(id)?token=SECRET"); Using(transport)
                }
            }
        }.send()
        #expect(try results[0].get().statusCode == 200)
        #expect(try results[1].get().statusCode == 200)
        let error = try #require(throws: RequestError.self) { try results[2].get() }
        #expect(
            error.description
                == "Unacceptable status 404 Not Found for slot [2] of the group, "
                + "GET http://api.test/todos/3?token=<redacted>; body: no such todo")
    }
}

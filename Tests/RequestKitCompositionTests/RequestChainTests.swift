import Foundation
import RequestKitComposition
import RequestKitDSL
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("RequestChain: steps that build on earlier responses", .wallClock)
struct RequestChainTests {
    /// A server with `/login` (a token for POSTs) and `/me` (the caller's `Authorization` and an id).
    private func makeServer(for wire: WireTransport) throws -> TestServer {
        let server = try wire.server()
        server.route("/login", method: "POST") { request in
            .json(Data(#"{"token":"t-\#(request.bodyText?.count ?? 0)"}"#.utf8))
        }
        server.route("/me") { request in
            .json(Data(#"{"id":42,"authorization":"\#(request.header("Authorization") ?? "")"}"#.utf8))
        }
        return server
    }

    private func loginAndProfile(_ server: TestServer, _ wire: WireTransport) -> RequestChain {
        RequestChain {
            Step("login") { _ in
                Request {
                    Url(server.url("/login")); Using(wire.transport); Method(.post); Body(json: ["user": "ann"])
                }
            }
            Step("profile") { previous in
                let token = try previous.json("login").token.string ?? ""
                return Request {
                    Url(server.url("/me")); Using(wire.transport); Header.Authorization(.bearer(token))
                }
            }
            Step("orders") { previous in
                let id = try previous.json("profile").id.int ?? 0
                return Request {
                    Url(server.url("/anything/users/\(id)/orders")); Using(wire.transport)
                }
            }
        }
    }

    private struct Token: Decodable, Sendable {
        let token: String
    }

    private struct Session: Decodable, Sendable {
        let accessToken: String
    }

    @Test("A step decodes an earlier step's body with Codable, and reads a JSON path", arguments: WireTransport.all)
    func decodesEarlierStep(_ wire: WireTransport) async throws {
        let server = try makeServer(for: wire)
        defer { server.stop() }
        let chain = RequestChain {
            Step("login") { _ in
                Request {
                    Url(server.url("/login")); Using(wire.transport); Method(.post); Body(json: ["user": "ann"])
                }
            }
            Step("profile") { previous in
                let login = try previous.decode("login", as: Token.self)
                let same = try previous.json("login", at: "token").string
                #expect(same == login.token)
                return Request {
                    Url(server.url("/me")); Using(wire.transport); Header.Authorization(.bearer(login.token))
                }
            }
        }
        let responses = try await chain.send()
        #expect(try responses.decode("login", as: Token.self).token == "t-14")
        #expect(server.requests.last?.header("Authorization") == "Bearer t-14")
    }

    @Test(
        "A key missing from an earlier step's body fails the step, naming the step and the key",
        arguments: WireTransport.all)
    func missingKeyNamesStep(_ wire: WireTransport) async throws {
        let server = try makeServer(for: wire)
        defer { server.stop() }
        let decoding = RequestChain {
            Step("login") { _ in
                Request {
                    Url(server.url("/login")); Using(wire.transport); Method(.post)
                }
            }
            Step("profile") { previous in
                let session = try previous.decode("login", as: Session.self)
                return Request {
                    Url(server.url("/me")); Using(wire.transport); Header.Authorization(.bearer(session.accessToken))
                }
            }
        }
        let decodeError = try await #require(throws: RequestError.self) { try await decoding.send() }
        #expect(decodeError.kind == .decoding)
        #expect(
            decodeError.description
                == #"Could not decode Session from step "login" for step "profile": no key "accessToken"; body: {"token":"<redacted>"}"#
        )

        let path = RequestChain {
            Step("login") { _ in
                Request {
                    Url(server.url("/login")); Using(wire.transport); Method(.post)
                }
            }
            Step("profile") { previous in
                let token = try previous.json("login", at: "data", "token").string ?? ""
                return Request {
                    Url(server.url("/me")); Using(wire.transport); Header.Authorization(.bearer(token))
                }
            }
        }
        let pathError = try await #require(throws: RequestError.self) { try await path.send() }
        #expect(pathError.kind == .stepFailed)
        #expect(
            pathError.description
                == #"stepFailed for step "profile" (step "login" has no "data.token" in its JSON body)"#)
        #expect(server.requests.map(\.path) == ["/login", "/login"])
    }

    @Test(
        "Each step builds its request from earlier responses: the token reaches the server",
        arguments: WireTransport.all)
    func passesData(_ wire: WireTransport) async throws {
        let server = try makeServer(for: wire)
        defer { server.stop() }
        let responses = try await loginAndProfile(server, wire).send()
        let received = server.requests
        #expect(received.map(\.path) == ["/login", "/me", "/anything/users/42/orders"])
        #expect(received[0].bodyText == #"{"user":"ann"}"#)
        #expect(received[1].header("Authorization") == "Bearer t-14")
        #expect(responses.names == ["login", "profile", "orders"])
        #expect(responses.responses.map(\.statusCode) == [200, 200, 200])
        #expect(responses.errors.isEmpty)
        #expect(try responses.json("profile").authorization.string == "Bearer t-14")
        #expect(try responses.response(at: 2).json().path.string == "/anything/users/42/orders")
        #expect(responses["missing"] == nil)
    }

    @Test("A chain is reusable: sending it again runs every step again", arguments: WireTransport.all)
    func reusable(_ wire: WireTransport) async throws {
        let server = try makeServer(for: wire)
        defer { server.stop() }
        let chain = loginAndProfile(server, wire)
        _ = try await chain.send()
        _ = try await chain.send()
        #expect(server.requests.map(\.path).count == 6)
    }

    @Test(
        "The chain stops at the first failing step, with an error naming the step and keeping the response",
        arguments: WireTransport.all)
    func stopsOnFailure(_ wire: WireTransport) async throws {
        let server = try makeServer(for: wire)
        defer { server.stop() }
        let url = server.url("/status/401")
        let chain = RequestChain {
            Step(
                "login",
                Request {
                    Url(url); Using(wire.transport)
                })
            Step("profile") { _ in
                Request {
                    Url(server.url("/me")); Using(wire.transport)
                }
            }
        }
        let error = try await #require(throws: RequestError.self) { try await chain.send() }
        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 401)
        #expect(error.request == "step \"login\" (GET \(url.absoluteString))")
        #expect(error.description.hasPrefix("Unacceptable status 401 Unauthorized for step \"login\" (GET "))
        #expect(server.requests.map(\.path) == ["/status/401"])
    }

    @Test("A step whose closure throws fails as stepFailed, keeping the thrown error")
    func closureThrows() async throws {
        struct MissingToken: Error {}
        let chain = RequestChain {
            Step("token") { _ in throw MissingToken() }
        }
        let error = try await #require(throws: RequestError.self) { try await chain.send() }
        #expect(error.kind == .stepFailed)
        #expect(error.underlyingError is MissingToken)
        #expect(error.description == "stepFailed for step \"token\" (could not build its request): MissingToken()")
    }

    @Test("Continuing after failures runs every step and collects the errors", arguments: WireTransport.all)
    func continueAndCollect(_ wire: WireTransport) async throws {
        let server = try makeServer(for: wire)
        defer { server.stop() }
        let chain = RequestChain(continueOnFailure: true) {
            Step(
                "broken",
                Request {
                    Url(server.url("/status/500")); Using(wire.transport)
                })
            Step(
                "independent",
                Request {
                    Url(server.url("/anything/ok")); Using(wire.transport)
                })
            Step("dependent") { previous in
                let id = try previous.json("broken").id.int ?? 0
                return Request {
                    Url(server.url("/anything/\(id)")); Using(wire.transport)
                }
            }
        }
        let responses = try await chain.send()
        #expect(responses.names == ["broken", "independent", "dependent"])
        #expect(responses.responses.map(\.statusCode) == [200])
        #expect(responses.errors.map(\.kind) == [.unacceptableStatus, .stepFailed])
        #expect(responses.errors[0].statusCode == 500)
        #expect(responses.errors[1].request == "step \"dependent\"")
        #expect(responses.errors[1].description.contains("needs step \"broken\", which failed"))
        #expect(server.requests.map(\.path) == ["/status/500", "/anything/ok"])
    }

    @Test("call delivers each step's body and error, as swift-request did", arguments: WireTransport.all)
    func callCompletion(_ wire: WireTransport) async throws {
        let server = try makeServer(for: wire)
        defer { server.stop() }
        let log = Log()
        await RequestChain {
            Step(
                "first",
                Request {
                    Url(server.url("/anything/1")); Using(wire.transport)
                })
            Step(
                "second",
                Request {
                    Url(server.url("/status/404")); Using(wire.transport)
                })
            Step(
                "third",
                Request {
                    Url(server.url("/anything/3")); Using(wire.transport)
                })
        }
        .call { data, errors in
            log.add("data \(data.map { $0.map { String(decoding: $0, as: UTF8.self).contains("/anything/1") } })")
            for error in errors { log.add("error \(error?.statusCode ?? 0) \(error?.request ?? "-")") }
        }
        .wait()
        let failed = server.url("/status/404").absoluteString
        #expect(
            log.entries == ["data [Optional(true), nil]", "error 0 -", "error 404 step \"second\" (GET \(failed))"])
        #expect(server.requests.count == 2)
    }

    @Test("onStep reports each step by name as it finishes", arguments: WireTransport.all)
    func onStep(_ wire: WireTransport) async throws {
        let server = try makeServer(for: wire)
        defer { server.stop() }
        let log = Log()
        let chain = RequestChain(continueOnFailure: true) {
            Step(
                "missing",
                Request {
                    Url(server.url("/status/404")); Using(wire.transport)
                })
            Step(
                "present",
                Request {
                    Url(server.url("/anything")); Using(wire.transport)
                })
        }
        .onStep { name, result in
            switch result {
            case .success(let response): log.add("\(name) \(response.statusCode)")
            case .failure(let error): log.add("\(name) \(error.kind) \(error.statusCode ?? 0)")
            }
        }
        _ = try await chain.send()
        #expect(log.entries == ["missing unacceptableStatus 404", "present 200"])
    }

    @Test("Steps can come from if and for")
    func builder() {
        let chain = RequestChain {
            Step("a", Request { Url("http://api.test/a") })
            if Bool.random() {
                Step("b", Request { Url("http://api.test/b") })
            } else {
                Step("b", Request { Url("http://api.test/c") })
            }
            for name in ["c", "d"] { Step(name, Request { Url("http://api.test/\(name)") }) }
        }
        #expect(chain.steps.map(\.name) == ["a", "b", "c", "d"])
        #expect(!chain.continuesAfterFailure)
    }
}

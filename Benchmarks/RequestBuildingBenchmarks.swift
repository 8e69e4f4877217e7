import Foundation
import RequestKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Building a `URLRequest` from a ten-component DSL block, against building the same request by hand.
func runRequestBuildingBenchmarks() {
    let body = Data(#"{"title":"Write benchmarks","done":false}"#.utf8)
    let dsl = Request {
        Url("http://127.0.0.1:8080/api/v1")
        Path("todos", 42)
        Method(.put)
        Header.Accept(.json)
        Header.ContentType(.json)
        Header.Authorization(.bearer("secret-token"))
        Header.UserAgent("bench/1.0")
        Query("expand", value: "owner")
        Query("fields", value: "id,title")
        Body(body, contentType: .json)
    }

    func handBuilt() -> URLRequest? {
        guard var components = URLComponents(string: "http://127.0.0.1:8080/api/v1/todos/42") else { return nil }
        components.percentEncodedQueryItems = [
            URLQueryItem(name: "expand", value: "owner"),
            URLQueryItem(name: "fields", value: "id%2Ctitle"),
        ]
        guard let url = components.url else { return nil }
        var request = URLRequest(url: url, timeoutInterval: 60)
        request.httpMethod = "PUT"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer secret-token", forHTTPHeaderField: "Authorization")
        request.setValue("bench/1.0", forHTTPHeaderField: "User-Agent")
        request.httpBody = body
        return request
    }

    guard let viaDSL = try? dsl.urlRequest(), let byHand = handBuilt(), viaDSL.url == byHand.url,
        viaDSL.allHTTPHeaderFields == byHand.allHTTPHeaderFields, viaDSL.httpBody == byHand.httpBody
    else {
        print("request building: the DSL and hand-built requests differ; not measuring")
        return
    }

    let iterations = 20_000
    // Alternating rounds, so that a change of load during the run hits both sides alike.
    let (manual, declarative) = measureAlternately(
        iterations: iterations, { blackHole(handBuilt()) }, { blackHole(try? dsl.urlRequest()) })
    let ratio = declarative.nanosecondsPerOperation / manual.nanosecondsPerOperation
    print("")
    print("## Building a URLRequest (10 components, \(iterations) builds per round, median of 15 alternating rounds)")
    print("| how | ns per build |")
    print("|---|---|")
    print("| hand-built URLRequest | \(formatted(manual.nanosecondsPerOperation, decimals: 0)) |")
    print("| DSL urlRequest() | \(formatted(declarative.nanosecondsPerOperation, decimals: 0)) |")
    print("ratio DSL / hand-built: \(formatted(ratio, decimals: 2))× (target ≤ 1.5×)")
}

import Foundation
import RequestKit
import RequestKitTesting

/// Forwards test-server requests to the origin through a cache, blocking the server's connection thread (which
/// route handlers may) until the answer is in.
struct CacheProxy: Sendable {
    let origin: URL
    let cache: ResponseCache

    /// Fields that belong to one connection, or that the test server writes itself.
    static let droppedRequestFields: Set<String> = [
        "host", "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "content-length",
    ]
    static let droppedResponseFields: Set<String> = [
        "connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding",
    ]

    func forward(_ incoming: TestRequest) -> TestResponse {
        let answer = Answer()
        let semaphore = DispatchSemaphore(value: 0)
        Task {
            answer.response = await send(incoming)
            semaphore.signal()
        }
        semaphore.wait()
        return answer.response ?? TestResponse(status: 502)
    }

    private func send(_ incoming: TestRequest) async -> TestResponse {
        guard let url = URL(string: origin.absoluteString + incoming.target) else { return TestResponse(status: 400) }
        let fields = incoming.headers.filter { !Self.droppedRequestFields.contains($0.name.lowercased()) }
        let request = Request {
            Url(url)
            Method(HTTPMethod(incoming.method))
            for field in fields { Header.Any(key: field.name, value: field.value) }
            if !incoming.body.isEmpty { Body(incoming.body) }
            Redirects(.doNotFollow)
            Cache(cache)
            Timeout(30)
        }
        do {
            let response = try await request.send()
            var headers = response.headers.filter { !Self.droppedResponseFields.contains($0.name.lowercased()) }
                .map { (name: $0.name, value: $0.value) }
            headers.append((name: "X-Cache-Status", value: response.cacheStatus.name))
            return TestResponse(status: response.statusCode, headers: headers, body: .data(response.body))
        } catch {
            return TestResponse(status: 502, headers: [("X-Proxy-Error", "\(error.kind)")])
        }
    }
}

/// The answer a forwarding task hands to the waiting thread; the semaphore orders the write before the read.
private final class Answer: @unchecked Sendable {
    var response: TestResponse?
}

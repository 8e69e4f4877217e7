import Foundation

@testable import RequestKitFeatures
@testable import RequestKitModel

/// Stored responses and requests for the cache's table tests, on a fixed timeline.
enum CacheFixtures {
    /// The moment a fixture response was received.
    static let received = Date(timeIntervalSince1970: 1_700_000_000)
    static let url = URL(string: "http://127.0.0.1:1/resource") ?? URL(fileURLWithPath: "/")

    /// `received` moved by `seconds`.
    static func at(_ seconds: Double) -> Date { received.addingTimeInterval(seconds) }

    /// An HTTP-date `seconds` from `received`.
    static func httpDate(_ seconds: Double) -> String { HTTPDateFormat.string(from: at(seconds)) }

    /// A stored response with `fields`, received at `received` (requested at the same moment).
    static func stored(
        status: Int = 200, _ fields: [(String, String)] = [], varying: [CachedResponse.VaryingField] = []
    ) -> CachedResponse {
        CachedResponse(
            status: status, headers: HTTPHeaders(fields.map { HTTPHeader(name: $0.0, value: $0.1) }),
            body: Data("stored".utf8), url: url, requestTime: received, responseTime: received,
            varyingFields: varying)
    }

    /// A GET request with `fields`.
    static func request(
        _ fields: [(String, String)] = [], method: String = "GET", rule: CachePolicy.Rule = .useProtocol
    ) -> CacheRequest {
        CacheRequest(
            method: method, url: url, headers: HTTPHeaders(fields.map { HTTPHeader(name: $0.0, value: $0.1) }),
            rule: rule)
    }

    /// A response with `fields`.
    static func response(status: Int = 200, _ fields: [(String, String)] = []) -> Response {
        Response(
            status: HTTPStatus(code: status), headers: HTTPHeaders(fields.map { HTTPHeader(name: $0.0, value: $0.1) }),
            body: Data("fresh".utf8), url: url)
    }
}

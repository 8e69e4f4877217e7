import Foundation
import RequestKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An interceptor that sets one header on every attempt, whatever its bytes.
struct HeaderSetter: Interceptor {
    let name: String
    let value: String

    func adapt(_ request: URLRequest) async throws -> URLRequest {
        var request = request
        request.setValue(value, forHTTPHeaderField: name)
        return request
    }
}

/// An interceptor that asks for a retry after an infinite delay, whatever the outcome.
struct EndlessRetry: Interceptor {
    func retry(
        _ request: URLRequest, outcome: Result<Response, RequestError>, context: RetryContext
    ) async throws -> RetryDecision {
        .retry(after: .infinity)
    }
}

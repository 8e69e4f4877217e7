import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Exchange {
    /// One streamed attempt through the client features: interceptors adapt the head, the cookie jar adds its
    /// cookies and stores the response's, monitors see the attempt, and the redirect policy applies.
    ///
    /// There are no retries: the body has started flowing to the consumer by the time an outcome is known.
    func stream(_ transfer: TransferRequest) async throws(RequestError) -> StreamingResponse {
        try await perform(transfer, head: \.head) { [transport] adapted in try await transport.stream(adapted) }
    }

    /// Runs one attempt of a transfer whose result carries a response head, with the client features applied.
    func perform<Result: Sendable>(
        _ transfer: TransferRequest, head: (Result) -> Response,
        _ operation: @escaping @Sendable (TransferRequest) async throws -> Result
    ) async throws(RequestError) -> Result {
        var request = try await adapted(transfer.urlRequest)
        let explicitCookies = request.value(forHTTPHeaderField: "Cookie")
        cookieJar?.addCookies(to: &request)
        for monitor in monitors { monitor.requestStarted(request, attempt: 1) }
        let start = DispatchTime.now()
        var adapted = transfer
        adapted.urlRequest = request
        let options = TransferOptions(
            redirects: redirectPolicy, cookieJar: cookieJar, explicitCookies: explicitCookies, limits: limits,
            sensitiveData: sensitiveData)
        do {
            try Task.checkCancellation()
            let result = try await TransferOptions.$current.withValue(options) {
                try await operation(adapted)
            }
            let response = head(result)
            let duration = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            if let cookieJar, let url = response.url ?? request.url {
                cookieJar.store(response.cookies, from: url)
            }
            for monitor in monitors {
                monitor.responseReceived(response, for: request, duration: duration, attempt: 1)
            }
            return result
        } catch {
            let failure = RequestExecutor.requestError(for: error)
            let duration = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            for monitor in monitors { monitor.requestFailed(failure, for: request, duration: duration, attempt: 1) }
            throw failure
        }
    }
}

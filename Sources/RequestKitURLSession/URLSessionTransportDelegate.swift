import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one delegate of a ``URLSessionTransport``'s session: routes every task's callbacks to the
/// ``TransferRegistry``, which hands them to the caller of `send` or `stream`.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Safe: the only stored property is a `let` to a lock-guarded registry.
    let registry: TransferRegistry

    init(registry: TransferRegistry) {
        self.registry = registry
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        registry.received(response, for: dataTask)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        registry.received(data, for: dataTask)
    }

    /// Never follows: the 3xx comes back as it is (status, `Location`, body), and the request pipeline decides
    /// what to do with it, the same way for every transport.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        registry.completed(task, error: error)
    }

    /// Authentication is the request's business (an `Authorization` header), so a 401 reaches the caller as a
    /// response. FoundationNetworking waits forever on a challenge it has no stored credential for, so there the
    /// 401 already received is kept and the challenge is cancelled, which ends the task.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        registry.challenged(task, failureResponse: challenge.failureResponse)
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        completionHandler(.performDefaultHandling, nil)
        #endif
    }
}

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends built requests: picks the transport, runs the exchange (cookies, interceptors, monitors, redirects,
/// retries), enforces the total deadline over every attempt and turns every failure into a ``RequestError``
/// that names the request.
enum RequestExecutor {
    /// Builds and sends `parts`, returning the response whatever its status.
    static func send(_ parts: RequestParts) async throws(RequestError) -> Response {
        if needsStreaming(parts) { return try await sendStreaming(parts) }
        let urlRequest = try parts.makeURLRequest()
        let exchange = Exchange(parts, transport: parts.transport ?? URLSessionTransport.shared)
        do {
            if let deadline = parts.resourceTimeout {
                return try await withDeadline(seconds: deadline, clock: parts.clock) {
                    try await exchange.run(urlRequest)
                }
            }
            try Task.checkCancellation()
            return try await exchange.run(urlRequest)
        } catch {
            throw requestError(for: error).describingRequest(parts)
        }
    }

    /// Runs `operation`, failing with a timeout when it takes longer than `seconds` on `clock`.
    static func withDeadline<T: Sendable>(
        seconds: Double, clock: RequestClock, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await clock.sleep(seconds: seconds)
                throw RequestError.timedOut("the total deadline of \(seconds) s passed")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }

    /// `"GET http://…"` for error messages, with the URL's secrets redacted: the one label of a request in errors.
    static func label(_ parts: RequestParts) -> String? {
        guard let url = try? parts.resolvedURL() else { return nil }
        return "\(parts.method.rawValue) \(parts[option: SensitiveDataKey.self].redacting(url.absoluteString))"
    }

    /// Maps any error to a ``RequestError``.
    static func requestError(for error: any Error) -> RequestError {
        switch error {
        case let error as RequestError: error
        case let error as CancellationError: RequestError.cancelled(underlyingError: error)
        default: RequestError.transport(error)
        }
    }
}

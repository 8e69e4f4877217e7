#if Tracing
import Foundation
import RequestKit
import RequestKitConventions
import Tracing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The span of one request as it is sent: started by the first attempt's adaptation (on the sending task, so that
/// the task's `ServiceContext` is its parent), given each attempt's outcome, and ended when the request ends. One is
/// made for each request ``Traced`` is applied to.
final class RequestSpan: Interceptor, EventMonitor, @unchecked Sendable {
    private let tracer: any Tracer
    private let sensitiveData: SensitiveData
    /// Guards `state`.
    private let lock = NSLock()
    private var state = State()

    private struct State {
        var span: (any Span)?
        var isEnded = false
        /// The last attempt's outcome: a status or an error.
        var status: Int?
        var error: RequestError?
    }

    init(tracer: any Tracer, sensitiveData: SensitiveData) {
        self.tracer = tracer
        self.sensitiveData = sensitiveData
    }

    /// A span the request never ended (an interceptor threw, so no monitor heard its end) ends when the request is
    /// dropped, so that no span stays open.
    deinit {
        if let span = state.span, !state.isEnded {
            span.setStatus(SpanStatus(code: .error, message: "the request ended without an outcome"))
            span.end()
        }
    }

    func adapt(_ request: URLRequest) async throws -> URLRequest {
        let span = lock.withLock {
            if let span = state.span { return span }
            let span = tracer.startSpan(
                HTTPClientConventions.method(of: request), context: ServiceContext.current ?? .topLevel,
                ofKind: .client)
            span.updateAttributes { attributes in
                attributes["http.request.method"] = HTTPClientConventions.method(of: request)
                if let original = HTTPClientConventions.originalMethod(of: request) {
                    attributes["http.request.method_original"] = original
                }
                attributes["url.full"] = HTTPClientConventions.urlFull(of: request, redacting: sensitiveData)
                if let address = HTTPClientConventions.serverAddress(of: request) {
                    attributes["server.address"] = address
                }
                if let port = HTTPClientConventions.serverPort(of: request) { attributes["server.port"] = port }
            }
            state.span = span
            return span
        }
        var adapted = request
        tracer.inject(span.context, into: &adapted, using: HeaderInjector())
        return adapted
    }

    func responseReceived(_ response: Response, for request: URLRequest, duration: Double, attempt: Int) {
        lock.withLock {
            state.status = response.statusCode
            state.error = nil
        }
    }

    func requestFailed(_ error: RequestError, for request: URLRequest, duration: Double, attempt: Int) {
        let span = lock.withLock {
            state.status = nil
            state.error = error
            return state.span
        }
        span?.recordError(error, attributes: ["error.type": .string(HTTPClientConventions.errorType(of: error))])
    }

    func requestFinished(_ request: URLRequest, metrics: RequestMetrics) {
        let ended = lock.withLock { () -> (span: any Span, status: Int?, error: RequestError?)? in
            guard let span = state.span, !state.isEnded else { return nil }
            state.isEnded = true
            return (span, state.status, state.error)
        }
        guard let ended else { return }
        let last = metrics.attempts.last
        ended.span.updateAttributes { attributes in
            if let status = ended.status { attributes["http.response.status_code"] = status }
            if let version = HTTPClientConventions.protocolVersion(ofNetworkProtocol: last?.networkProtocol) {
                attributes["network.protocol.version"] = version
            }
            if metrics.attempts.count > 1 { attributes["http.request.resend_count"] = metrics.attempts.count - 1 }
            if let error = ended.error {
                attributes["error.type"] = HTTPClientConventions.errorType(of: error)
            } else if let status = ended.status, let type = HTTPClientConventions.errorType(ofStatus: status) {
                attributes["error.type"] = type
            }
        }
        if let error = ended.error {
            ended.span.setStatus(SpanStatus(code: .error, message: error.kind.name))
        } else if let status = ended.status, status >= 400 {
            ended.span.setStatus(SpanStatus(code: .error))
        }
        ended.span.end()
    }
}

/// Sets each value the tracer propagates as a header field of the request, replacing a field of the same name.
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into request: inout URLRequest) {
        request.setValue(value, forHTTPHeaderField: key)
    }
}
#endif

import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A WebSocket's opening handshake seen by its monitors as a request's attempt is, against TestServer on 127.0.0.1:
/// started, answered (or failed), then finished with the metrics the socket or the error keeps.
@Suite("WebSocket handshake monitors (wire)", .wallClock)
struct WebSocketMonitorTests {
    /// Records each event with what it carried, and the metrics each finish reported.
    final class Recorder: EventMonitor, @unchecked Sendable {
        // Safe: every access to `finished` holds `lock`.
        private let lock = NSLock()
        private var finishedMetrics: [RequestMetrics] = []
        let log = Log()

        var finished: [RequestMetrics] { lock.withLock { finishedMetrics } }

        func requestStarted(_ request: URLRequest, attempt: Int) {
            log.add("start \(attempt) \(request.httpMethod ?? "") \(request.url?.absoluteString ?? "")")
        }
        func responseReceived(_ response: Response, for request: URLRequest, duration: Double, attempt: Int) {
            log.add("response \(attempt) \(response.statusCode) \(response.headers["Upgrade"] ?? "")")
        }
        func requestFailed(_ error: RequestError, for request: URLRequest, duration: Double, attempt: Int) {
            log.add("failed \(attempt) \(error.kind) \(error.statusCode.map(String.init) ?? "")")
        }
        func requestFinished(_ request: URLRequest, metrics: RequestMetrics) {
            lock.withLock { finishedMetrics.append(metrics) }
            log.add("finished \(metrics.attempts.map { $0.status.map { "\($0.code)" } ?? "-" })")
        }
    }

    @Test("an accepted handshake: started, the 101 received, finished with the socket's metrics")
    func accepted() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let recorder = Recorder()
        let socket = try await WebSocket {
            Url("ws://127.0.0.1:\(server.port)/websocket/echo")
            Monitor(recorder)
            Timeout(30)
        }.connect()
        let url = "http://127.0.0.1:\(server.port)/websocket/echo"
        #expect(recorder.log.entries == ["start 1 GET \(url)", "response 1 101 websocket", #"finished ["101"]"#])
        #expect(recorder.finished == [socket.metrics])
        let attempt = try #require(socket.metrics.attempts.first)
        #expect(socket.metrics.attempts.count == 1)
        #expect(attempt.url?.absoluteString == url)
        #expect(attempt.status == 101)
        #expect(attempt.remoteAddress == "127.0.0.1:\(server.port)")
        #expect(attempt.addressAttempts.map(\.address) == ["127.0.0.1:\(server.port)"])
        #expect(attempt.addressAttempts.map(\.outcome) == [.connected])
        #expect(attempt.connect != nil)
        #expect(attempt.requestSent != nil)
        #expect(attempt.firstResponseByte != nil)
        #expect(attempt.tlsHandshake == nil)
        #expect(attempt.bodyBytesReceived == 0)
        let request = try #require(server.requests.first)
        #expect(attempt.bytesSent ?? 0 > 0)
        #expect(request.path == "/websocket/echo")
        try await socket.close()
    }

    @Test("a refused handshake: started, failed with its status, finished with the error's metrics")
    func refused() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let recorder = Recorder()
        let error = await #expect(throws: RequestError.self) {
            _ = try await WebSocket {
                Url("ws://127.0.0.1:\(server.port)/websocket/nothing-here")
                Monitor(recorder)
                Timeout(30)
            }.connect()
        }
        let url = "http://127.0.0.1:\(server.port)/websocket/nothing-here"
        #expect(recorder.log.entries == ["start 1 GET \(url)", "failed 1 webSocket 404", #"finished ["404"]"#])
        #expect(recorder.finished == [error?.metrics ?? RequestMetrics()])
        let attempt = error?.metrics?.attempts.first
        #expect(attempt?.status == 404)
        #expect(attempt?.remoteAddress == "127.0.0.1:\(server.port)")
        #expect(attempt?.responseComplete != nil)
    }
}

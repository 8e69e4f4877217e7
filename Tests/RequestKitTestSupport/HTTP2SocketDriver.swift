#if canImport(CNghttp2)
import Foundation
import RequestKitModel

import RequestKitHTTP2

/// Drives an ``HTTP2Session`` over a blocking socket to a real server speaking h2c (prior knowledge) on 127.0.0.1:
/// it starts the requests as the server's stream limit allows, reads every body piece at once (so the windows
/// reopen), and sends a request again on a new connection when the session says the server never processed it.
/// Blocks: run it off the cooperative pool.
///
/// ```swift
/// let run = try await offThePool { try HTTP2SocketDriver.exchange(port: port, paths: ["/a", "/b"], streamWindow: 65_535) }
/// ```
package enum HTTP2SocketDriver {
    /// A request to send.
    package struct Request: Sendable {
        package var method = "GET"
        package var path: String
        package var body: Data?

        package init(method: String = "GET", path: String, body: Data? = nil) {
            self.method = method
            self.path = path
            self.body = body
        }
    }

    /// What a request got.
    package struct Answer: Sendable, Equatable {
        package var status = 0
        package var headers = HTTPHeaders()
        package var body = Data()

        package init(status: Int = 0, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    /// What a run saw.
    package struct Run: Sendable {
        package var answers: [String: Answer] = [:]
        package var connections = 0
        package var retries = 0
        package var maxConcurrentStreams = 0
        package var mostOpenAtOnce = 0
        package var failures: [String] = []
    }

    /// GETs `paths`.
    package static func exchange(port: Int, paths: [String], streamWindow: Int) throws -> Run {
        try exchange(port: port, requests: paths.map { Request(path: $0) }, streamWindow: streamWindow)
    }

    /// Sends `requests`, each answer kept under its path.
    package static func exchange(port: Int, requests: [Request], streamWindow: Int) throws -> Run {
        var run = Run()
        var pending = requests
        while !pending.isEmpty, run.connections < 10 {
            run.connections += 1
            let socket = try BlockingHTTPConnection(port: port, timeout: .seconds(10))
            defer { socket.close() }
            var settings = HTTP2Settings()
            settings.streamWindow = streamWindow
            settings.assumedMaxConcurrentStreams = 1
            let session = try HTTP2Session(settings: settings)
            var streams: [Int32: Request] = [:]
            var answers: [Int32: Answer] = [:]
            while !(pending.isEmpty && streams.isEmpty) {
                while session.canOpenStream, let request = pending.first,
                    session.hasServerSettings || streams.isEmpty
                {
                    let head = HTTP2RequestHead(
                        method: request.method, scheme: "http", authority: "127.0.0.1:\(port)", path: request.path,
                        headers: request.body.map { ["Content-Length": String($0.count)] } ?? [:])
                    let stream = try session.request(head, body: request.body.map { .bytes($0) })
                    streams[stream] = request
                    pending.removeFirst()
                }
                run.mostOpenAtOnce = max(run.mostOpenAtOnce, streams.count)
                try socket.send(Data(session.outgoing()))
                guard let bytes = socket.readAvailable() else {
                    run.failures.append("the connection ended with \(streams.count) streams open")
                    return run
                }
                for output in bytes.withUnsafeBytes({ session.receive($0) }) {
                    switch output {
                    case .head(let stream, let status, let headers):
                        answers[stream, default: Answer()].status = status
                        answers[stream, default: Answer()].headers = headers
                    case .data(let stream, let piece):
                        answers[stream, default: Answer()].body.append(piece)
                        session.consumed(piece.count, on: stream)
                    case .end(let stream):
                        if let request = streams.removeValue(forKey: stream) {
                            run.answers[request.path] = answers[stream]
                        }
                    case .retry(let stream, _):
                        if let request = streams.removeValue(forKey: stream) {
                            run.retries += 1
                            pending.append(request)
                        }
                    case .failed(let stream, let failure):
                        streams[stream] = nil
                        run.failures.append("stream \(stream): \(failure)")
                    case .closed(let failure):
                        if let failure { run.failures.append("connection: \(failure)") }
                    case .informational, .trailers, .goingAway, .pingAnswered:
                        break
                    }
                }
                run.maxConcurrentStreams = session.hasServerSettings ? session.maxConcurrentStreams : 0
                if !session.isAvailable, streams.isEmpty { break }
            }
            try socket.send(Data(session.outgoing()))
        }
        return run
    }
}
#endif

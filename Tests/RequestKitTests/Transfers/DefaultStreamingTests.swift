import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Transport.stream default implementation", .wallClock)
struct DefaultStreamingTests {
    @Test("A transport without stream(_:) gets the file body in memory and returns the body as one chunk")
    func bufferedFallback() async throws {
        let file = try TemporaryFile(contents: Data("file contents".utf8))
        defer { file.remove() }
        let mock = MockTransport { request in
            Response(status: .ok, headers: ["Content-Type": "text/plain"], body: request.httpBody ?? Data())
        }
        let request = Request {
            Url("http://api.test/echo")
            Method(.post)
            Body(file: file.url, contentType: .text)
            Using(mock)
        }
        let response = try await request.stream()
        var chunks: [Data] = []
        for try await chunk in response { chunks.append(chunk) }
        #expect(chunks == [Data("file contents".utf8)])
        #expect(try await request.data() == Data("file contents".utf8))
        #expect(mock.requests.first?.value(forHTTPHeaderField: "Content-Type") == "text/plain")
    }

    @Test("ResponseBodyStream.makeStream: yield reports a full buffer, onDemand runs once it drains below half")
    func continuationContract() async throws {
        let (stream, continuation) = ResponseBodyStream.makeStream(bufferLimit: 8)
        let demands = ProgressLog()
        continuation.onDemand = { demands.append(TransferProgress(completedBytes: 1, totalBytes: nil)) }
        #expect(continuation.yield(Data("abc".utf8)))
        #expect(!continuation.yield(Data("defgh".utf8)))
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == Data("abc".utf8))
        #expect(demands.values.isEmpty)
        #expect(try await iterator.next() == Data("defgh".utf8))
        #expect(demands.values.count == 1)
        continuation.finish()
        #expect(try await iterator.next() == nil)
    }

    @Test("Dropping an unfinished stream runs onTermination")
    func termination() async {
        let terminated = ProgressLog()
        do {
            let (stream, continuation) = ResponseBodyStream.makeStream()
            continuation.onTermination = { terminated.append(TransferProgress(completedBytes: 0, totalBytes: nil)) }
            _ = continuation.yield(Data("x".utf8))
            _ = stream
        }
        #expect(terminated.values.count == 1)
    }
}

import Foundation
import RequestKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request pipeline's own cost, with no network: `Request { Url(url); Using(transport) }.send()` against
/// `transport.send(URLRequest(url: url))` on a transport that answers at once from memory, in alternating rounds.
func runPipelineBenchmarks() {
    guard let url = URL(string: "http://127.0.0.1:8080/todo.json") else { return }
    let transport = CannedTransport(
        response: Response(
            status: .ok, headers: ["Content-Type": "application/json", "Content-Length": "118"],
            body: Data(repeating: 0x61, count: 118)))
    let environment = ProcessInfo.processInfo.environment
    // Fewer for a profiler: REQUESTKIT_PIPELINE_ITERATIONS=2000 REQUESTKIT_BENCH_ROUNDS=1 under callgrind.
    let iterations = Int(environment["REQUESTKIT_PIPELINE_ITERATIONS"] ?? "").map { max($0, 1) } ?? 20_000
    let rounds = Int(environment["REQUESTKIT_BENCH_ROUNDS"] ?? "").map { max($0, 1) } ?? 15
    let (pipeline, direct) = runBlocking { () async -> ([Double], [Double]) in
        var pipeline: [Double] = []
        var direct: [Double] = []
        for round in 0...rounds {
            var start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<iterations {
                blackHole(
                    try? await Request {
                        Url(url); Using(transport)
                    }.send())
            }
            let pipelineSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<iterations {
                blackHole(try? await transport.send(URLRequest(url: url)))
            }
            let directSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            if round > 0 {
                pipeline.append(pipelineSeconds)
                direct.append(directSeconds)
            }
        }
        return (pipeline.sorted(), direct.sorted())
    }
    let pipelineNanoseconds = pipeline[rounds / 2] / Double(iterations) * 1e9
    let directNanoseconds = direct[rounds / 2] / Double(iterations) * 1e9
    print("\nPipeline: one GET answered from memory, \(iterations) per round, median of \(rounds) rounds")
    print("| path | ns per request |")
    print("|---|---|")
    print("| transport.send(URLRequest) | \(formatted(directNanoseconds, decimals: 0)) |")
    print("| Request { Url; Using }.send() | \(formatted(pipelineNanoseconds, decimals: 0)) |")
    print("| the pipeline's own cost | \(formatted(pipelineNanoseconds - directNanoseconds, decimals: 0)) |")
}

/// A transport that answers every request with the same response, at once.
private struct CannedTransport: Transport {
    let response: Response

    func stream(_ request: TransferRequest) async throws -> StreamingResponse {
        StreamingResponse(head: response, body: ResponseBodyStream(response.body))
    }

    func send(_ request: TransferRequest) async throws -> Response {
        var response = response
        response.url = request.url
        return response
    }
}

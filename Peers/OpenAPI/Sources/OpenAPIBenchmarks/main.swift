// One contender of Scripts/compare-openapi-transports.sh: the client swift-openapi-generator generated from
// Tests/IntegrationTests/OpenAPI/openapi.yaml calls getGreeting (GET /api/greetings/ann, a 25-byte JSON body,
// decoded) against the server at the URL given, from `tasks` tasks at once, for `seconds` seconds after one second
// of warm-up, through one transport:
//
//   OpenAPIBenchmarks requestkit http://127.0.0.1:8080/api 16 5   # RequestKitTransport over a RequestKit Client
//   OpenAPIBenchmarks ahc http://127.0.0.1:8080/api 16 5          # AsyncHTTPClientTransport over an HTTPClient
//   OpenAPIBenchmarks none http://127.0.0.1:8080/api 16 5         # no transport: the same response made in memory,
//                                                                 # what the generated client costs by itself
//
// Both clients may open up to 64 connections to the host (not their defaults, 16 and 8), as the transport
// benchmarks and Peers/AsyncHTTPClient configure them.
//
// It prints one line, `<contender> <tasks> <requests/s> <CPU µs per request> <failures>` (CPU: the process's user
// plus system time over the measured seconds); a run with a failure exits 1.
import AsyncHTTPClient
import Foundation
import HTTPTypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import RequestKit
import RequestKitOpenAPI

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 5, let serverURL = URL(string: arguments[2]), let tasks = Int(arguments[3]),
    let seconds = Double(arguments[4]), tasks > 0, seconds > 0
else {
    print("usage: OpenAPIBenchmarks requestkit|ahc|none <server URL> <tasks> <seconds>")
    exit(2)
}
let contender = arguments[1]
let transport: any ClientTransport
switch contender {
case "requestkit":
    let native = NativeTransport { $0.maxConnectionsPerHost = 64 }
    transport = RequestKitTransport(client: RequestKit.Client(baseURL: serverURL) { $0.transport = native })
case "none":
    transport = InMemoryTransport()
case "ahc":
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    transport = AsyncHTTPClientTransport(configuration: .init(client: client))
default:
    print("unknown contender \(contender): requestkit, ahc or none")
    exit(2)
}
let api = Client(serverURL: serverURL, transport: transport)

/// Answers every operation with the server's getGreeting response, made in memory: the floor under both transports.
struct InMemoryTransport: ClientTransport {
    func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let body = Array(#"{"message":"Hello, ann."}"#.utf8)
        var response = HTTPResponse(status: .ok)
        response.headerFields[.contentType] = "application/json"
        response.headerFields[.contentLength] = String(body.count)
        return (response, HTTPBody(body))
    }
}

/// Calls getGreeting from `tasks` tasks until `duration` has passed; returns the calls completed and failed.
func run(for duration: Duration) async -> (completed: Int, failed: Int) {
    let end = ContinuousClock.now + duration
    return await withTaskGroup(of: (Int, Int).self) { group in
        for _ in 0..<tasks {
            group.addTask {
                var completed = 0
                var failed = 0
                while ContinuousClock.now < end {
                    do {
                        let message = try await api.getGreeting(path: .init(name: "ann")).ok.body.json.message
                        if message == "Hello, ann." { completed += 1 } else { failed += 1 }
                    } catch {
                        failed += 1
                    }
                }
                return (completed, failed)
            }
        }
        return await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
    }
}

/// User plus system CPU time of this process so far, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    #if canImport(Darwin)
    getrusage(RUSAGE_SELF, &usage)
    #else
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #endif
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}

_ = await run(for: .seconds(1))
let start = ContinuousClock.now
let cpuStart = processCPUSeconds()
let (completed, failed) = await run(for: .seconds(seconds))
let cpu = processCPUSeconds() - cpuStart
let elapsed = ContinuousClock.now - start
let perSecond = Double(completed) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
let cpuPerRequest = completed > 0 ? cpu / Double(completed) * 1e6 : 0
print("\(contender) \(tasks) \(Int(perSecond.rounded())) \(String(format: "%.1f", cpuPerRequest)) \(failed)")
exit(failed == 0 ? 0 : 1)

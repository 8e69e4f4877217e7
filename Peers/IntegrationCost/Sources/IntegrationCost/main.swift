// Sends `count` sequential GET requests to the URL given through a Client on its own NativeTransport, with none of
// the integrations or with LoggingMonitor, MetricsMonitor, Traced or all three on no-op backends, for
// Scripts/measure-integration-cost.sh, which counts the instructions of two counts under callgrind and divides the
// difference by the requests between them:
//
//   IntegrationCost none http://127.0.0.1:8080/ 1000
//   IntegrationCost all http://127.0.0.1:8080/ 1000
//
// Built with `--disable-default-traits` (RequestKit's traits off), only `none` is accepted. It prints
// `<mode> <count> <failures>`; a run with a failure exits 1.
import Foundation
import RequestKit

#if Integrations
import CoreMetrics
import Logging
import RequestKitLogging
import RequestKitMetrics
import RequestKitTracing
import Tracing

let modes = ["none", "logging", "metrics", "tracing", "all"]
#else
let modes = ["none"]
#endif

let arguments = CommandLine.arguments
guard arguments.count == 4, let url = URL(string: arguments[2]), let count = Int(arguments[3]), count >= 0,
    modes.contains(arguments[1])
else {
    print("usage: IntegrationCost \(modes.joined(separator: "|")) <URL> <count>")
    exit(2)
}
let mode = arguments[1]
// Waiting for the event loop rather than polling for the response, so that callgrind counts nearly the same
// instructions whatever the timing (as `Benchmarks transport-profile … nopoll` does).
let transport = NativeTransport { $0.responsePollWindow = 0 }
let client = Client(baseURL: url) { configuration in
    configuration.transport = transport
    #if Integrations
    if mode == "logging" || mode == "all" {
        // The level a service logs at: the monitor's records are `info`, and a no-op handler drops them.
        let logger = Logger(label: "cost") { _ in SwiftLogNoOpLogHandler() }
        configuration.monitors.append(LoggingMonitor(logger: logger))
    }
    if mode == "metrics" || mode == "all" {
        configuration.monitors.append(MetricsMonitor(factory: NOOPMetricsHandler.instance))
    }
    if mode == "tracing" || mode == "all" {
        configuration.defaults = [Traced(tracer: NoOpTracer())]
    }
    #endif
}

/// Sends the requests one after another and returns how many failed.
func sendAll(_ client: Client, count: Int) async -> Int {
    var failures = 0
    for _ in 0..<count {
        do {
            let response = try await client.send(Request { Path("") })
            if response.statusCode != 200 { failures += 1 }
        } catch {
            failures += 1
        }
    }
    return failures
}

/// How many requests failed, written by the detached task before it signals `done`.
final class Outcome: @unchecked Sendable {
    var failures = 0
}
// The main thread waits on a semaphore rather than running an `async` main (whose dispatch main thread valgrind 3.19
// cannot run); the task is detached, since one created here would inherit the main actor and wait on it forever.
let outcome = Outcome()
let done = DispatchSemaphore(value: 0)
Task.detached { [client, count] in
    outcome.failures = await sendAll(client, count: count)
    done.signal()
}
done.wait()
print("\(mode) \(count) \(outcome.failures)")
exit(outcome.failures == 0 ? 0 : 1)

// Sends `count` sequential GET requests to the URL given through a Client on its own NativeTransport, either plain
// or with LoggingMonitor, MetricsMonitor and Traced on no-op backends, for Scripts/measure-integration-cost.sh,
// which counts the instructions of two counts under callgrind and divides the difference by the requests between:
//
//   IntegrationCost plain http://127.0.0.1:8080/ 1000
//   IntegrationCost integrations http://127.0.0.1:8080/ 1000
//
// It prints `<mode> <count> <failures>`; a run with a failure exits 1.
import CoreMetrics
import Foundation
import Logging
import RequestKit
import RequestKitLogging
import RequestKitMetrics
import RequestKitTracing
import Tracing

let arguments = CommandLine.arguments
guard arguments.count == 4, let url = URL(string: arguments[2]), let count = Int(arguments[3]), count >= 0,
    ["plain", "integrations"].contains(arguments[1])
else {
    print("usage: IntegrationCost plain|integrations <URL> <count>")
    exit(2)
}
let mode = arguments[1]
let transport = NativeTransport()
let client = Client(baseURL: url) { configuration in
    configuration.transport = transport
    if mode == "integrations" {
        // The level a service logs at: the monitor's records are `info`, and a no-op handler drops them.
        let logger = Logger(label: "cost") { _ in SwiftLogNoOpLogHandler() }
        configuration.monitors = [LoggingMonitor(logger: logger), MetricsMonitor(factory: NOOPMetricsHandler.instance)]
        configuration.defaults = [Traced(tracer: NoOpTracer())]
    }
}
var failures = 0
for _ in 0..<count {
    do {
        let response = try await client.send(Request { Path("") })
        if response.statusCode != 200 { failures += 1 }
    } catch {
        failures += 1
    }
}
print("\(mode) \(count) \(failures)")
exit(failures == 0 ? 0 : 1)

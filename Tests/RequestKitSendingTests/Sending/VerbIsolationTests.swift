import Dispatch
import Foundation
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitSending
import RequestKitTestSupport
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The pipeline runs on the executor of the verb that called it; the verbs themselves are concurrent, so a request
/// sent from an actor leaves it: what the pipeline runs synchronously (building the request, checking it, calling
/// monitors) never takes the caller's actor, the main actor of an app among them.
@Suite("Verbs called on an actor: the pipeline runs off it")
struct VerbIsolationTests {
    /// Runs an actor's jobs on `queue`, which carries `key`: code can tell whether it runs on the actor.
    final class QueueExecutor: SerialExecutor {
        static let key = DispatchSpecificKey<String>()
        let queue: DispatchQueue

        init() {
            queue = DispatchQueue(label: "verb-isolation")
            queue.setSpecific(key: Self.key, value: "on the caller's actor")
        }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedSerialExecutor()
            queue.async { job.runSynchronously(on: executor) }
        }
    }

    /// The caller: an actor whose jobs run on a ``QueueExecutor``.
    actor Caller {
        let executor = QueueExecutor()
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

        /// Sends `request` with `verb`, noting where the actor's own code ran before and after.
        func send(_ request: Request, verb: String, log: Log) async throws {
            log.add("caller \(Self.place())")
            switch verb {
            case "send": _ = try await request.send()
            case "data": _ = try await request.data()
            case "string": _ = try await request.string()
            default:
                struct Number: Decodable { let n: Int }
                _ = try await request.decode(Number.self)
            }
            log.add("caller \(Self.place())")
        }

        static func place() -> String { DispatchQueue.getSpecific(key: QueueExecutor.key) ?? "elsewhere" }
    }

    /// Records where each event came.
    struct PlaceRecorder: EventMonitor {
        let log: Log
        func requestStarted(_ request: URLRequest, attempt: Int) {
            log.add("started \(Caller.place())")
        }
        func responseReceived(_ response: Response, for request: URLRequest, duration: Double, attempt: Int) {
            log.add("received \(Caller.place())")
        }
    }

    @Test(
        "send, data, string and decode called on an actor call monitors off it, and return to it",
        arguments: ["send", "data", "string", "decode"])
    func monitorsOffTheCallersActor(_ verb: String) async throws {
        let log = Log()
        let transport = MockTransport { _ in Response(status: 200, body: Data(#"{"n":1}"#.utf8)) }
        let request = Request {
            Url("http://api.test/isolation")
            Using(transport)
            Monitor(PlaceRecorder(log: log))
        }
        try await Caller().send(request, verb: verb, log: log)
        #expect(
            log.entries == [
                "caller on the caller's actor", "started elsewhere", "received elsewhere",
                "caller on the caller's actor",
            ])
    }
}

import Foundation
import RequestKit
import RequestKitTesting
import Testing

/// Every way of sending a request: each pipeline guarantee is checked through each of them.
enum Verb: String, CaseIterable, Codable, Sendable, CustomTestStringConvertible {
    case send, data, decode, stream, upload, download, events, poll, group, chain, clientSend

    var testDescription: String { rawValue }

    /// Whether the verb validates the status (200..<300 by default) and fails on another; `send`, an upload
    /// through `send()` and `client.send` return every response as it came.
    var validates: Bool { ![.send, .upload, .clientSend].contains(self) }

    /// Whether the caller sees the status of a successful response; `decode` gives only the value and `events`
    /// only the events (which arrive only from a 200).
    var showsStatus: Bool { ![.decode, .events].contains(self) }

    /// What the caller reads from ``PipelineRoutes/final(on:at:)``: the first event's data for `events`, the
    /// JSON document otherwise.
    var expectedBody: Data { self == .events ? Data("ok".utf8) : PipelineRoutes.finalJSON }

    /// The method the verb sends when the call names none: PUT for an upload, which always carries a body.
    var defaultMethod: HTTPMethod { self == .upload ? .put : .get }

    /// Performs the verb and returns what its caller observed, giving up (and cancelling) after `bound`.
    func perform(
        _ call: PipelineCall, on transport: any Transport, bound: Duration = PipelineRoutes.bound
    ) async -> Observation {
        await firstObservation(within: bound) {
            let files: URL
            do {
                files = try Self.makeScratchDirectory()
            } catch {
                return Observation(failure: "cannot create a scratch directory: \(error)")
            }
            defer { try? FileManager.default.removeItem(at: files) }
            do {
                return try await run(call, transport: transport, files: files)
            } catch {
                return Observation(catching: error)
            }
        }
    }

    private func run(_ call: PipelineCall, transport: any Transport, files: URL) async throws -> Observation {
        let request = Request(components: try components(for: call, transport: transport, files: files))
        switch self {
        case .send, .upload:
            return Observation(try await request.send())
        case .data:
            let response = try await request.validatedResponse()
            return Observation(response)
        case .decode:
            let flag = try await request.decode(PipelineFlag.self)
            return Observation(status: nil, headers: nil, body: try JSONEncoder().encode(flag))
        case .stream:
            let streaming = try await request.stream()
            return Observation(streaming.head, body: try await streaming.collect())
        case .download:
            let destination = files.appendingPathComponent("download.bin")
            let head = try await request.download(to: destination)
            return Observation(head, body: try Data(contentsOf: destination))
        case .events:
            var events = request.events(EventSourceConfiguration(maxReconnectAttempts: 0)).makeAsyncIterator()
            guard let event = try await events.next() else {
                return Observation(failure: "the event stream ended without an event")
            }
            return Observation(status: nil, headers: nil, body: Data(event.data.utf8))
        case .poll:
            for await result in request.poll(every: .seconds(1), maxCount: 1) {
                switch result {
                case .changed(let response): return Observation(response)
                case .failed(let error): return Observation(error)
                case .unchanged: return Observation(failure: "the first poll reported the resource unchanged")
                }
            }
            return Observation(failure: "polling ended without a result")
        case .group:
            let results = try await RequestGroup { request }.send()
            guard let first = results.first else { return Observation(failure: "the group returned no result") }
            return Observation(try first.get())
        case .chain:
            return Observation(try await RequestChain { Step("only", request) }.send().response("only"))
        case .clientSend:
            let client = Client(baseURL: call.server.baseURL) { $0.transport = transport }
            return Observation(try await client.send(request))
        }
    }

    /// The request's components: the URL, method, transport and body this verb needs, then the call's own.
    private func components(
        for call: PipelineCall, transport: any Transport, files: URL
    ) throws -> [any RequestComponent] {
        var components: [any RequestComponent] = []
        if self == .clientSend {
            components.append(Url(String(call.target.drop { $0 == "/" })))
        } else {
            components.append(Url(call.server.url(call.target)))
            components.append(Using(transport))
        }
        components.append(Method(call.method ?? defaultMethod))
        let payload = call.payload ?? (self == .upload ? .bytes(Data("uploaded".utf8)) : nil)
        switch payload {
        case .bytes(let data, let contentType):
            if self == .upload {
                let file = files.appendingPathComponent("upload.bin")
                try data.write(to: file)
                components.append(Body(file: file, contentType: contentType))
            } else {
                components.append(Body(data, contentType: contentType))
            }
        case .formPart(let data, let type):
            if self == .upload {
                let file = files.appendingPathComponent("part.bin")
                try data.write(to: file)
                components.append(Form { FilePart("file", url: file, type: type) })
            } else {
                components.append(Form { DataPart("file", data, type: type) })
            }
        case nil:
            break
        }
        if self == .upload { components.append(UploadProgress { _ in }) }
        return components + call.components
    }

    private static func makeScratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("requestkit-pipeline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

/// The document the final route answers with, decoded by ``Verb/decode``.
struct PipelineFlag: Codable, Sendable {
    let ok: Bool
}

/// Runs `work` in a task of its own and returns its observation, or a failure once `bound` passes, cancelling the
/// work then without waiting for it, so a verb that ignores cancellation cannot hold the test up.
func firstObservation(
    within bound: Duration, _ work: @escaping @Sendable () async -> Observation
) async -> Observation {
    let outcome = FirstOutcome()
    return await withCheckedContinuation { continuation in
        outcome.start(continuation)
        let worker = Task {
            outcome.finish(await work())
        }
        Task {
            try? await Task.sleep(for: bound)
            if outcome.finish(Observation(failure: "no result within \(bound)")) { worker.cancel() }
        }
    }
}

/// Resumes a continuation once, with whichever observation comes first.
private final class FirstOutcome: @unchecked Sendable {
    // Safe: `continuation` is only read and written while holding `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Observation, Never>?

    func start(_ continuation: CheckedContinuation<Observation, Never>) {
        lock.withLock { self.continuation = continuation }
    }

    /// Resumes with `observation` and returns true, unless an earlier observation already did.
    @discardableResult
    func finish(_ observation: Observation) -> Bool {
        let pending: CheckedContinuation<Observation, Never>? = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
        pending?.resume(returning: observation)
        return pending != nil
    }
}

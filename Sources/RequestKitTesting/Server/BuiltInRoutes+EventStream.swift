import Foundation

extension BuiltInRoutes {
    /// `/sse?count=N&retry=MS&interval=MS&drop=K`: a `text/event-stream` of events `1…N`.
    ///
    /// Each event is `id: i` and `data: message i`. `Last-Event-ID: j` resumes after event `j`. `retry` sends a
    /// `retry:` field first. `drop=K` closes the connection after `K` events, only on the first such request the
    /// server sees, so a reconnecting client can finish.
    func serverSentEvents(_ request: TestRequest) -> TestResponse {
        guard let count = number(request, "count", default: 5, in: 0...100_000),
            let interval = number(request, "interval", default: 0, in: 0...10_000)
        else {
            return Self.badRequest("count and interval must be numbers in range")
        }
        let retry = request.queryValue("retry").flatMap { Int($0) }
        let drop = request.queryValue("drop").flatMap { Int($0) }
        let lastID = max(
            0, request.header("Last-Event-ID").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0)
        let first = lastID + 1
        let last = Int(count)
        let dropAfter = drop.flatMap { $0 >= 0 && $0 < last - lastID && core.claimEventStreamDrop() ? $0 : nil }
        let pause = Duration.milliseconds(Int(interval))
        return TestResponse.stepped(headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")]) {
            var pending: [BodyStep] = retry.map { [.write(Data("retry: \($0)\n\n".utf8))] } ?? []
            var sent = 0
            var id = first
            return AnyIterator {
                if !pending.isEmpty { return pending.removeFirst() }
                guard id <= last else { return nil }
                if let dropAfter, sent == dropAfter {
                    id = last + 1
                    return .close
                }
                let event = BodyStep.write(Data("id: \(id)\ndata: message \(id)\n\n".utf8))
                if sent > 0 && pause > .zero { pending.append(event) }
                sent += 1
                id += 1
                return sent > 1 && pause > .zero ? .pause(pause) : event
            }
        }
    }
}

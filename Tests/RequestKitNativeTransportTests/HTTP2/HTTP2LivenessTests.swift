import Testing

@testable import RequestKitNativeTransport

/// The liveness check of idle HTTP/2 connections, event by event: when it waits, pings, stops and gives up.
@Suite("HTTP/2 liveness: PINGs on idle connections")
struct HTTP2LivenessTests {
    enum Event: Sendable, CustomStringConvertible {
        case idle(at: UInt64)
        case busy
        case fired(at: UInt64, idle: Bool)
        case answered(at: UInt64, idle: Bool)

        var description: String {
            switch self {
            case .idle(let now): "idle at \(now)"
            case .busy: "busy"
            case .fired(let now, let idle): "timer at \(now)\(idle ? "" : ", busy")"
            case .answered(let now, let idle): "answer at \(now)\(idle ? "" : ", busy")"
            }
        }
    }

    /// Plays `events` on a check with an interval of 100 and returns the actions, in order.
    static func play(_ events: [Event]) -> [HTTP2Liveness.Action] {
        var liveness = HTTP2Liveness(interval: 100)
        return events.map { event in
            switch event {
            case .idle(let now): liveness.becameIdle(at: now)
            case .busy: liveness.becameBusy()
            case .fired(let now, let idle): liveness.timerFired(at: now, isIdle: idle)
            case .answered(let now, let idle): liveness.pingAnswered(at: now, isIdle: idle)
            }
        }
    }

    static let cases: [(String, [Event], [HTTP2Liveness.Action])] = [
        (
            "idle: wait one interval, then PING and wait as long for the answer",
            [.idle(at: 0), .fired(at: 100, idle: true)],
            [.wait(until: 100), .sendPing(thenWaitUntil: 200)]
        ),
        (
            "an answer while idle: the next PING one interval after it",
            [.idle(at: 0), .fired(at: 100, idle: true), .answered(at: 130, idle: true), .fired(at: 230, idle: true)],
            [.wait(until: 100), .sendPing(thenWaitUntil: 200), .wait(until: 230), .sendPing(thenWaitUntil: 330)]
        ),
        (
            "no answer by the next check: the connection closes",
            [.idle(at: 0), .fired(at: 100, idle: true), .fired(at: 200, idle: true)],
            [.wait(until: 100), .sendPing(thenWaitUntil: 200), .close]
        ),
        (
            "busy before the timer: it stops, and idleness starts a new wait",
            [.idle(at: 0), .busy, .idle(at: 50)],
            [.wait(until: 100), .stopTimer, .wait(until: 150)]
        ),
        (
            "idle again while waiting: the wait already set stands",
            [.idle(at: 0), .idle(at: 40)],
            [.wait(until: 100), .none]
        ),
        (
            "busy with nothing set: nothing to stop",
            [.busy],
            [.none]
        ),
        (
            "a timer that finds the connection busy does nothing",
            [.idle(at: 0), .fired(at: 100, idle: false)],
            [.wait(until: 100), .none]
        ),
        (
            "an answer that arrives once busy stops the timer; the request's own timeouts hold",
            [.idle(at: 0), .fired(at: 100, idle: true), .answered(at: 120, idle: false)],
            [.wait(until: 100), .sendPing(thenWaitUntil: 200), .stopTimer]
        ),
        (
            "an answer to no PING of the check's changes nothing",
            [.idle(at: 0), .answered(at: 10, idle: true)],
            [.wait(until: 100), .none]
        ),
        (
            "a PING unanswered when the connection went busy and idle again: the next check closes it",
            [.idle(at: 0), .fired(at: 100, idle: true), .busy, .idle(at: 150), .fired(at: 250, idle: true)],
            [.wait(until: 100), .sendPing(thenWaitUntil: 200), .stopTimer, .wait(until: 250), .close]
        ),
    ]

    @Test("Each sequence of events gives exactly these actions", arguments: cases)
    func table(_ name: String, _ events: [Event], _ expected: [HTTP2Liveness.Action]) {
        #expect(Self.play(events) == expected, "\(name): \(events)")
    }
}

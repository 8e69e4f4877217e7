import Testing

@testable import RequestKitNativeTransport

/// Whether a request an HTTP/2 server did not process is sent again or fails.
@Suite("HTTP/2 refusals: sent again, or failed after five connections that served nothing")
struct HTTP2RefusalsTests {
    enum Event: Sendable, CustomStringConvertible {
        case served
        case wentAway(lastStreamID: Int32)

        var description: String {
            switch self {
            case .served: "a head arrived"
            case .wentAway(let last): "GOAWAY last \(last)"
            }
        }
    }

    static let cases: [(String, [Event], Int, HTTP2Refusals.Decision)] = [
        ("a fresh connection's first refusal", [], 0, .sendAgain(refusalsInARow: 1)),
        ("the fifth in a row from connections that served nothing", [], 4, .sendAgain(refusalsInARow: 5)),
        ("the sixth in a row fails", [], 5, .fail(refusalsInARow: 6)),
        ("a connection that served a head resets the count", [.served], 5, .sendAgain(refusalsInARow: 0)),
        (
            "GOAWAY naming a processed stream counts as served", [.wentAway(lastStreamID: 7)], 5,
            .sendAgain(refusalsInARow: 0)
        ),
        ("GOAWAY naming none does not", [.wentAway(lastStreamID: 0)], 5, .fail(refusalsInARow: 6)),
        (
            "GOAWAY naming none after a served head: served", [.served, .wentAway(lastStreamID: 0)], 5,
            .sendAgain(refusalsInARow: 0)
        ),
    ]

    @Test("Each connection's history and count of earlier refusals gives this decision", arguments: cases)
    func table(_ name: String, _ events: [Event], _ earlier: Int, _ expected: HTTP2Refusals.Decision) {
        var refusals = HTTP2Refusals()
        for event in events {
            switch event {
            case .served: refusals.served()
            case .wentAway(let last): refusals.wentAway(lastStreamID: last)
            }
        }
        #expect(refusals.decide(afterRefusals: earlier) == expected, "\(name)")
    }
}

import Testing

@testable import RequestKitNativeTransport

/// How long a transport remembers that an origin's HTTP/2 server does not allow extended CONNECT (RFC 8441), on
/// the loop's clock given as numbers: five minutes at first, twice as long after each refusal that follows, up to a
/// day; forgotten when the server allows it; a bounded number of origins.
@Suite("Extended CONNECT refusals")
struct ExtendedConnectRefusalsTests {
    private static let minute: UInt64 = 60 * 1_000_000_000
    private static let origin = ConnectionKey(host: "example.com", port: 443)
    private static let other = ConnectionKey(host: "example.org", port: 443)

    /// A step: at `minute`, either a refusal or a check of whether the origin counts as refused.
    enum Step: Sendable, CustomTestStringConvertible {
        case refused(at: UInt64)
        case allowed(at: UInt64)
        case check(at: UInt64, refused: Bool)

        var testDescription: String {
            switch self {
            case .refused(let minute): "refused at \(minute) min"
            case .allowed(let minute): "allowed at \(minute) min"
            case .check(let minute, let refused): "\(refused ? "refused" : "not refused") at \(minute) min"
            }
        }
    }

    @Test(
        "A refusal holds for five minutes, then twice as long as the last after each refusal that follows",
        arguments: [
            [
                Step.check(at: 0, refused: false), .refused(at: 0), .check(at: 0, refused: true),
                .check(at: 4, refused: true), .check(at: 5, refused: false),
            ],
            [
                .refused(at: 0), .refused(at: 5), .check(at: 14, refused: true), .check(at: 15, refused: false),
                .refused(at: 15), .check(at: 34, refused: true), .check(at: 35, refused: false),
            ],
            [
                .refused(at: 0), .allowed(at: 1), .check(at: 1, refused: false),
                .refused(at: 2), .check(at: 6, refused: true), .check(at: 7, refused: false),
            ],
        ])
    func remembered(steps: [Step]) {
        let refusals = ExtendedConnectRefusals()
        for step in steps {
            switch step {
            case .refused(let minute): refusals.insert(Self.origin, now: minute * Self.minute)
            case .allowed: refusals.remove(Self.origin)
            case .check(let minute, let refused):
                #expect(refusals.contains(Self.origin, now: minute * Self.minute) == refused, "\(step)")
                #expect(!refusals.contains(Self.other, now: minute * Self.minute))
            }
        }
    }

    @Test("A refusal that keeps coming back is remembered for a day at most")
    func longest() {
        let refusals = ExtendedConnectRefusals()
        var now: UInt64 = 0
        var periods: [UInt64] = []
        for _ in 0..<12 {
            refusals.insert(Self.origin, now: now)
            var end = now
            while refusals.contains(Self.origin, now: end) { end += Self.minute }
            periods.append((end - now) / Self.minute)
            now = end
        }
        #expect(periods == [5, 10, 20, 40, 80, 160, 320, 640, 1280, 1440, 1440, 1440])
    }

    @Test("At most 256 origins are remembered: a new one replaces the one whose refusal ends first")
    func bounded() {
        let refusals = ExtendedConnectRefusals()
        for port in 0..<ExtendedConnectRefusals.capacity {
            refusals.insert(ConnectionKey(host: "example.com", port: 1000 + port), now: UInt64(port) * Self.minute)
        }
        #expect(refusals.count == 256)
        refusals.insert(Self.other, now: 300 * Self.minute)
        #expect(refusals.count == 256)
        let now = 300 * Self.minute
        #expect(!refusals.contains(ConnectionKey(host: "example.com", port: 1000), now: 0))
        #expect(refusals.contains(ConnectionKey(host: "example.com", port: 1001), now: Self.minute))
        #expect(refusals.contains(Self.other, now: now))
    }
}

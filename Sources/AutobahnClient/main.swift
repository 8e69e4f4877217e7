import Foundation
import RequestKit

// The client under test of the Autobahn|Testsuite fuzzing server (Scripts/start-autobahn.sh): asks the server how
// many cases it has, runs each (echoing every message until the connection ends), then asks it to write its
// reports, which Scripts/autobahn-summary.py counts. Never a product.
//
//   swift run AutobahnClient "$REQUESTKIT_AUTOBAHN_URL" RequestKit
//
// Prints the number of cases run and how long they took; exits 1 when the server cannot be reached.

/// The socket every case opens: limits above the suite's largest messages (16 MiB), permessage-deflate offered
/// with a window the server may bound (section 13's cases accept what the client offers).
func open(_ url: String) async throws -> WebSocket.Socket {
    try await WebSocket {
        Url(url)
        Timeout(60)
        WebSocket.Configuration(
            maxMessageBytes: 64 << 20, maxFrameBytes: 64 << 20, maxQueuedBytes: 64 << 20,
            compression: WebSocket.Compression(clientMaxWindowBits: 15))
    }.connect()
}

/// One case: every message goes back as it came, until the server closes or fails the connection.
func runCase(_ url: String) async {
    do {
        let socket = try await open(url)
        for try await message in socket.messages {
            try await socket.send(message)
        }
    } catch {
        // A case that fails the connection on purpose ends here; the server records what happened.
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: AutobahnClient ws://127.0.0.1:PORT AGENT")
    exit(2)
}
let (base, agent) = (arguments[1], arguments[2])
let started = ContinuousClock.now
var count = 0
do {
    let socket = try await open("\(base)/getCaseCount")
    for try await message in socket.messages {
        if case .text(let text) = message { count = Int(text) ?? 0 }
    }
} catch {
    print("could not ask \(base) for its case count: \(error)")
    exit(1)
}
let only = ProcessInfo.processInfo.environment["REQUESTKIT_AUTOBAHN_ONLY"].flatMap(Int.init)
for number in 1...max(count, 1) where count > 0 && (only == nil || only == number) {
    await runCase("\(base)/runCase?case=\(number)&agent=\(agent)")
}
do {
    let socket = try await open("\(base)/updateReports?agent=\(agent)")
    for try await _ in socket.messages {}
} catch {
    // kosoku ends its server once the reports are written, without a closing handshake.
}
print("\(count) cases in \(started.duration(to: .now))")

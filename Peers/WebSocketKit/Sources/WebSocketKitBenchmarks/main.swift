// The websocket-kit side of RequestKit's `Benchmarks websocket-echo`: the same echo workload against the same echo
// server, written the way websocket-kit is meant to be used (callbacks on the socket's event loop, the next message
// sent from the callback that received the echo, no hop to a task), so the comparison is with its fastest form.
//
//   WebSocketKitBenchmarks echo <ws url> <sockets> <seconds> text|binary
//
// Opens <sockets> sockets on NIO's singleton event loop group (one thread per core), each sending one message and
// waiting for its echo before the next (a 32-byte text message, or a 1 MiB binary one), counts the echoes that came
// back whole for <seconds> after a 0.5 s warm-up, and prints one line for Scripts/compare-websocket.sh:
//
//   result client=websocket-kit sockets=16 kind=text messages=123456 seconds=3.001 cpu=2.345 bytes=3950592
//
// (cpu: user plus system seconds of this process over the same window; bytes: the payload bytes echoed.)
import Atomics
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import WebSocketKit

#if canImport(Glibc)
import Glibc
#endif

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

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("WebSocketKitBenchmarks: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 5, arguments[0] == "echo", let sockets = Int(arguments[2]), sockets > 0,
    let seconds = Double(arguments[3]), arguments[4] == "text" || arguments[4] == "binary"
else {
    fail("usage: WebSocketKitBenchmarks echo <ws url> <sockets> <seconds> text|binary")
}
let url = arguments[1]
let isText = arguments[4] == "text"
let text = "0123456789abcdef0123456789abcdef"
let binary = [UInt8](repeating: 0x5a, count: 1 << 20)
let messageBytes = isText ? text.utf8.count : binary.count

let echoes = ManagedAtomic<Int>(0)
let wrong = ManagedAtomic<Int>(0)
let stopping = ManagedAtomic<Bool>(false)
let group = MultiThreadedEventLoopGroup.singleton
var configuration = WebSocketClient.Configuration()
configuration.maxFrameSize = 1 << 21

/// Counts an echo and sends the next message, unless the run is over.
@Sendable func received(_ socket: WebSocket, count: Int) {
    if count == messageBytes {
        echoes.wrappingIncrement(ordering: .relaxed)
    } else {
        wrong.wrappingIncrement(ordering: .relaxed)
    }
    guard !stopping.load(ordering: .relaxed) else { return }
    if isText { socket.send(text) } else { socket.send(binary) }
}

let opened = NIOLockedValueBox<[WebSocket]>([])
for _ in 0..<sockets {
    do {
        try await WebSocket.connect(to: url, configuration: configuration, on: group) { socket in
            socket.onText { socket, text in received(socket, count: text.utf8.count) }
            socket.onBinary { socket, buffer in received(socket, count: buffer.readableBytes) }
            opened.withLockedValue { $0.append(socket) }
        }.get()
    } catch {
        fail("connecting to \(url) failed: \(error)")
    }
}
// The upgrade callback runs on the socket's loop after the future completes; wait until every socket is there.
while opened.withLockedValue({ $0.count }) < sockets { try await Task.sleep(for: .milliseconds(1)) }
for socket in opened.withLockedValue({ $0 }) {
    socket.eventLoop.execute { if isText { socket.send(text) } else { socket.send(binary) } }
}

try await Task.sleep(for: .milliseconds(500))
let countBefore = echoes.load(ordering: .relaxed)
let cpuBefore = processCPUSeconds()
let start = DispatchTime.now().uptimeNanoseconds
try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
let countAfter = echoes.load(ordering: .relaxed)
let cpuAfter = processCPUSeconds()
let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
stopping.store(true, ordering: .relaxed)

let messages = countAfter - countBefore
print(
    "result client=websocket-kit sockets=\(sockets) kind=\(arguments[4]) messages=\(messages) "
        + "seconds=\(String(format: "%.3f", elapsed)) cpu=\(String(format: "%.3f", cpuAfter - cpuBefore)) "
        + "bytes=\(messages * messageBytes) wrong=\(wrong.load(ordering: .relaxed))")
for socket in opened.withLockedValue({ $0 }) { try? await socket.close(code: .normalClosure) }

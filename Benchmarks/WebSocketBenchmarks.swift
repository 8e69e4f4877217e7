import Foundation
import RequestKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The WebSocket client against the echo server at `REQUESTKIT_BENCH_WS_URL`
/// (`eval "$(bash Scripts/start-websocket-echo.sh)"`), each load in a child process of its own so that its threads
/// and peak memory are its own:
///
/// - echo: 32-byte text messages at 1, 16 and 64 sockets and 1 MiB binary messages on one socket, each socket
///   sending a message and waiting for its echo before the next (`Benchmarks websocket-echo`, the command
///   `Scripts/compare-websocket.sh` runs beside websocket-kit and Python `websockets` in the same rounds);
/// - idle: `REQUESTKIT_BENCH_WS_IDLE` (10,000 by default) sockets opened and held, with the process's threads and
///   resident memory while they are, then each one sending a message and reading its echo;
/// - stream: 64 MiB and then 1 GiB sent as 1 MiB binary messages on one socket while the echoes are read, with the
///   peak resident memory of each (flat memory: the same peak for both).
func runWebSocketBenchmarks() {
    if CommandLine.arguments.contains("--child") { return runWebSocketChild() }
    guard let url = ProcessInfo.processInfo.environment["REQUESTKIT_BENCH_WS_URL"] else {
        print("\nwebsocket: skipped (set REQUESTKIT_BENCH_WS_URL; eval \"$(bash Scripts/start-websocket-echo.sh)\")")
        return
    }
    print("\nWebSocket echo against \(url): one message in flight per socket, 3 s per load, each its own process")
    print("| load | messages/s | MB/s | CPU µs/message | failed echoes |")
    print("|---|---|---|---|---|")
    for (sockets, kind) in [(1, "text"), (16, "text"), (64, "text"), (1, "binary")] {
        let fields = runWebSocketChildProcess(["websocket-echo", url, "\(sockets)", "3", kind])
        guard let messages = Double(fields["messages"] ?? ""), let seconds = Double(fields["seconds"] ?? ""),
            let cpu = Double(fields["cpu"] ?? ""), let bytes = Double(fields["bytes"] ?? ""), messages > 0
        else {
            print("| \(sockets) × \(kind) | failed: \(fields["error"] ?? "no result") | | | |")
            continue
        }
        let load = "\(sockets) × \(kind == "text" ? "32 B text" : "1 MiB binary")"
        print(
            "| \(load) | \(formatted(messages / seconds, decimals: 0)) | \(formatted(bytes / seconds / 1e6)) | "
                + "\(formatted(cpu / messages * 1e6)) | \(fields["wrong"] ?? "?") |")
    }

    let count = Int(ProcessInfo.processInfo.environment["REQUESTKIT_BENCH_WS_IDLE"] ?? "") ?? 10_000
    let idle = runWebSocketChildProcess(["websocket", "--child", "idle", url, "\(count)"])
    print("\nWebSocket: \(count) idle sockets held open at once")
    print(
        "| opened | opened in, s | threads, all open | peak threads | RSS before | RSS, all open | peak RSS | "
            + "echoed after holding |")
    print("|---|---|---|---|---|---|---|---|")
    if let error = idle["error"] {
        print("| failed: \(error) | | | | | | | |")
    } else {
        print(
            "| \(idle["opened"] ?? "?") of \(count) | \(idle["openSeconds"] ?? "?") | \(idle["threads"] ?? "?") | "
                + "\(idle["peakThreads"] ?? "?") | \(idle["rssBeforeMiB"] ?? "?") MiB | \(idle["rssOpenMiB"] ?? "?") MiB | "
                + "\(idle["peakMiB"] ?? "?") MiB | \(idle["echoed"] ?? "?") |")
    }

    print("\nWebSocket: a stream of 1 MiB binary messages sent on one socket while their echoes are read")
    print("| total | messages | MB/s each way | RSS after connecting | peak RSS | failed |")
    print("|---|---|---|---|---|---|")
    for mebibytes in [64, 1_024] {
        let stream = runWebSocketChildProcess(["websocket", "--child", "stream", url, "\(mebibytes)"])
        if let error = stream["error"] {
            print("| \(mebibytes) MiB | failed: \(error) | | | | |")
            continue
        }
        print(
            "| \(mebibytes) MiB | \(stream["messages"] ?? "?") | \(stream["megabytesPerSecond"] ?? "?") | "
                + "\(stream["rssConnectedMiB"] ?? "?") MiB | \(stream["peakMiB"] ?? "?") MiB | \(stream["wrong"] ?? "?") |"
        )
    }
}

/// One contender of `Scripts/compare-websocket.sh`: `Benchmarks websocket-echo <ws url> <sockets> <seconds>
/// text|binary` opens the sockets, each sending a message (32 bytes of text, or 1 MiB binary) and reading its echo
/// before the next, counts the echoes that came back whole for `seconds` after a 0.5 s warm-up, and prints
/// `result client=RequestKit sockets=… kind=… messages=… seconds=… cpu=… bytes=… wrong=…`, the line
/// websocket-kit's peer and `Scripts/websocket-echo-client.py` print too.
func runWebSocketEcho(_ options: [String]) {
    guard options.count == 4 || (options.count == 5 && options[4] == "onloop"), let sockets = Int(options[1]),
        sockets > 0, let seconds = Double(options[2]), options[3] == "text" || options[3] == "binary"
    else {
        print("usage: Benchmarks websocket-echo <ws url> <sockets> <seconds> text|binary [onloop]")
        exit(2)
    }
    let url = options[0]
    let kind = options[3]
    let message: WebSocketMessage =
        kind == "text" ? .text("0123456789abcdef0123456789abcdef") : .binary(Data(repeating: 0x5a, count: 1 << 20))
    let messageBytes = kind == "text" ? 32 : 1 << 20
    let tally = EchoTally()
    // `onloop`: each socket's task runs on the transport's event loop, which resumes it where the echo is read.
    let executor = options.count == 5 ? NativeTransport.shared.taskExecutor : nil
    let line = runBlocking { () async -> String in
        var opened: [WebSocket.Socket] = []
        do {
            for _ in 0..<sockets { opened.append(try await WebSocket { Url(url) }.connect()) }
        } catch {
            let description = String(describing: error).replacingOccurrences(of: " ", with: "_")
            return "result client=RequestKit error=\(description)"
        }
        let runners = opened.map { socket in
            Task(executorPreference: executor) {
                await echo(message, expecting: messageBytes, on: socket, tally: tally)
            }
        }
        try? await Task.sleep(for: .milliseconds(500))
        let countBefore = tally.echoes
        let cpuBefore = processCPUSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        try? await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
        let messages = tally.echoes - countBefore
        let cpu = processCPUSeconds() - cpuBefore
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        tally.stop()
        for runner in runners { await runner.value }
        for socket in opened { try? await socket.close() }
        return "result client=RequestKit sockets=\(sockets) kind=\(kind) messages=\(messages) "
            + "seconds=\(formatted(elapsed, decimals: 3)) cpu=\(formatted(cpu, decimals: 3)) "
            + "bytes=\(messages * messageBytes) wrong=\(tally.wrong)"
    }
    print(line)
}

/// Sends `message` and reads its echo until the tally stops, counting each echo of the right size.
private func echo(
    _ message: WebSocketMessage, expecting bytes: Int, on socket: WebSocket.Socket, tally: EchoTally
)
    async
{
    var messages = socket.messages.makeAsyncIterator()
    while !tally.isStopped {
        do {
            try await socket.send(message)
            guard let echoed = try await messages.next() else { return tally.fail() }
            switch echoed {
            case .text(let text): tally.record(isWhole: text.utf8.count == bytes)
            case .binary(let data): tally.record(isWhole: data.count == bytes)
            }
        } catch {
            return tally.fail()
        }
    }
}

/// The echoes counted by every socket of a run, and whether the run is over.
private final class EchoTally: @unchecked Sendable {
    // Safe: every stored property is only touched while holding `lock`.
    private let lock = NSLock()
    private var echoCount = 0
    private var wrongCount = 0
    private var stopped = false

    var echoes: Int { lock.withLock { echoCount } }
    var wrong: Int { lock.withLock { wrongCount } }
    var isStopped: Bool { lock.withLock { stopped } }
    func record(isWhole: Bool) { lock.withLock { if isWhole { echoCount += 1 } else { wrongCount += 1 } } }
    func fail() { lock.withLock { wrongCount += 1 } }
    func stop() { lock.withLock { stopped = true } }
}

/// The children of the suite: `websocket --child idle <url> <count>` and `websocket --child stream <url> <MiB>`.
private func runWebSocketChild() {
    let options = Array(CommandLine.arguments.drop { $0 != "--child" }.dropFirst())
    guard options.count == 3, let number = Int(options[2]) else {
        print("result error=usage:_websocket_--child_idle|stream_<url>_<count|MiB>")
        return
    }
    let line =
        options[0] == "idle"
        ? runBlocking { await holdIdleSockets(url: options[1], count: number) }
        : runBlocking { await streamMessages(url: options[1], mebibytes: number) }
    print(line)
}

/// Opens `count` sockets, at most 256 handshakes at a time, holds them all for 2 s while reading the process's
/// threads and memory, then has each send a message and read its echo, and closes them.
private func holdIdleSockets(url: String, count: Int) async -> String {
    raiseDescriptorLimit(to: count + 1_024)
    let rssBefore = Double(processStatus("VmRSS")) / 1024
    let peak = ThreadPeak.sampling(everyMicroseconds: 20_000)
    defer { peak.finish() }
    let start = DispatchTime.now().uptimeNanoseconds
    var opened: [WebSocket.Socket] = []
    opened.reserveCapacity(count)
    var firstError: String?
    await withTaskGroup(of: Result<WebSocket.Socket, RequestError>.self) { group in
        var started = 0
        func startOne() {
            started += 1
            group.addTask {
                do throws(RequestError) {
                    return .success(try await WebSocket { Url(url) }.connect())
                } catch {
                    return .failure(error)
                }
            }
        }
        while started < min(count, 256) { startOne() }
        for await result in group {
            switch result {
            case .success(let socket): opened.append(socket)
            case .failure(let error): firstError = firstError ?? String(describing: error)
            }
            if started < count { startOne() }
        }
    }
    let openSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    try? await Task.sleep(for: .seconds(2))
    let threads = processThreads()
    let rssOpen = Double(processStatus("VmRSS")) / 1024
    let held = opened
    let echoed = await withTaskGroup(of: Bool.self) { group in
        for socket in held {
            group.addTask {
                var messages = socket.messages.makeAsyncIterator()
                do {
                    try await socket.send(.text("still open"))
                    return try await messages.next() == .text("still open")
                } catch {
                    return false
                }
            }
        }
        return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    for socket in held { try? await socket.close() }
    let peakMiB = Double(processStatus("VmHWM")) / 1024
    var line =
        "result opened=\(opened.count) openSeconds=\(formatted(openSeconds, decimals: 2)) threads=\(threads) "
        + "peakThreads=\(peak.value) rssBeforeMiB=\(formatted(rssBefore)) rssOpenMiB=\(formatted(rssOpen)) "
        + "peakMiB=\(formatted(peakMiB)) echoed=\(echoed)"
    if let firstError { line += " firstError=\(firstError.replacingOccurrences(of: " ", with: "_"))" }
    return line
}

/// Sends `mebibytes` 1 MiB binary messages on one socket from one task while another reads their echoes, and
/// reports the rate and the peak resident memory.
private func streamMessages(url: String, mebibytes: Int) async -> String {
    let socket: WebSocket.Socket
    do {
        socket = try await WebSocket { Url(url) }.connect()
    } catch {
        return "result error=\(String(describing: error).replacingOccurrences(of: " ", with: "_"))"
    }
    let rssConnected = Double(processStatus("VmRSS")) / 1024
    let payload = Data(repeating: 0x5a, count: 1 << 20)
    let start = DispatchTime.now().uptimeNanoseconds
    let sender = Task { () -> Bool in
        do {
            for _ in 0..<mebibytes { try await socket.send(.binary(payload)) }
            return true
        } catch {
            return false
        }
    }
    var received = 0
    var wrong = 0
    var messages = socket.messages.makeAsyncIterator()
    while received + wrong < mebibytes {
        guard case .binary(let data)? = try? await messages.next() else {
            wrong += 1
            break
        }
        if data.count == payload.count { received += 1 } else { wrong += 1 }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    if await !sender.value { wrong += 1 }
    try? await socket.close()
    let peakMiB = Double(processStatus("VmHWM")) / 1024
    return "result messages=\(received) wrong=\(wrong) rssConnectedMiB=\(formatted(rssConnected)) "
        + "peakMiB=\(formatted(peakMiB)) megabytesPerSecond=\(formatted(Double(received << 20) / seconds / 1e6))"
}

/// Runs this executable with `arguments` and returns the `key=value` fields of the `result` line it prints (an
/// `error` field when there is none).
private func runWebSocketChildProcess(_ arguments: [String]) -> [String: String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    do {
        try process.run()
    } catch {
        return ["error": "\(error)"]
    }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("result ") }) else {
        return ["error": "child printed no result: \(output.suffix(300))"]
    }
    var fields: [String: String] = [:]
    for field in line.split(separator: " ").dropFirst() {
        let parts = field.split(separator: "=", maxSplits: 1)
        if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
    }
    return fields
}

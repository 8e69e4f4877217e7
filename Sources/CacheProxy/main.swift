// A reverse proxy on loopback whose every request goes through a ResponseCache, for running the public HTTP cache
// test suite (github.com/http-tests/cache-tests) against RequestKit's cache: `Scripts/run-cache-tests.sh` starts
// the suite's origin server, this proxy in front of it, and the suite's client against the proxy.
//
//     swift run -c release CacheProxy http://127.0.0.1:8000 [memory | disk DIRECTORY]
//
// It prints the port it listens on, then serves until killed. Requests are forwarded as they came (hop-by-hop
// fields dropped), redirects are not followed, and the response is passed back whatever its status, with
// `X-Cache-Status` naming where it came from.
import Foundation
import RequestKit
import RequestKitTesting

let arguments = CommandLine.arguments
guard arguments.count >= 2, let origin = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: CacheProxy ORIGIN-URL [memory | disk DIRECTORY]\n".utf8))
    exit(2)
}
let storage: ResponseCache.Storage =
    if arguments.count >= 4, arguments[2] == "disk" {
        .disk(at: URL(fileURLWithPath: arguments[3]), maxBytes: 256 << 20)
    } else {
        .memory(maxBytes: 256 << 20)
    }
let proxy = CacheProxy(origin: origin, cache: ResponseCache(storage))
let server = try TestServer()
server.route("/*") { request in proxy.forward(request) }
FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
dispatchMain()

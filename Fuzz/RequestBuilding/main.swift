// A libFuzzer target for building requests: URLs, path segments, query items, header names and values, and
// methods taken from arbitrary bytes (see Fuzz/run-request-fuzzer.sh, which compiles every RequestKit source).
//
// Whatever the bytes, building must return a request or throw an invalid-request error; it never crashes. When it
// returns, the request must be safe to send: an http(s) URL with a host, no header name or value with a control
// character, a method that is a token, and every query value must come back exactly when percent-decoded.

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestBuilding(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    // Fields are separated by 0xFF, which never occurs in UTF-8.
    let fields = bytes.split(separator: 0xFF, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    func field(_ index: Int) -> String { index < fields.count ? fields[index] : "" }

    let queryValue = field(3)
    let request = Request {
        Url(field(0))
        Path(field(1))
        Query(field(2), value: queryValue)
        Header.Any(key: field(4), value: field(5))
        Method(HTTPMethod(field(6).isEmpty ? "GET" : field(6)))
        if !field(7).isEmpty {
            Method(.post)
            Body(field(7))
        }
    }
    let built: URLRequest
    do {
        built = try request.urlRequest()
    } catch {
        precondition(error.kind == .invalidRequest && !error.problems.isEmpty, "unexpected error \(error)")
        _ = request.cURL
        return 0
    }
    guard let url = built.url, let scheme = url.scheme?.lowercased() else {
        preconditionFailure("a built request has no URL")
    }
    precondition(scheme == "http" || scheme == "https", "scheme \(scheme)")
    precondition(!(url.host ?? "").isEmpty, "no host in \(url)")
    for (name, value) in built.allHTTPHeaderFields ?? [:] {
        precondition(!name.utf8.contains { $0 < 0x21 || $0 == 0x7F }, "header name \(name.debugDescription)")
        precondition(!value.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }, "header value")
    }
    let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    precondition(items.last?.value == queryValue, "query value \(queryValue.debugDescription) did not round-trip")
    _ = request.cURL
    return 0
}

// A libFuzzer target for building requests from arbitrary bytes: every component that reaches the wire (the URL,
// path segments and templates, query items, header names and values, the method, cookies, content types, a
// multipart form's part names, file names and types, and what an interceptor adds), then the pipeline's check of
// what is sent (OutgoingRequestCheck), and the redacted renderings (see Fuzz/run-request-fuzzer.sh, which compiles every
// RequestKit source).
//
// Whatever the bytes, building must return a request or throw an invalid-request error; it never crashes. When it
// returns, the request must be safe to send: an http(s) URL with a host, no header name or value with a control
// character, a method that is a token, every query value must come back exactly when percent-decoded, no path
// segment is `.` or `..`, and every multipart part header is one line without a control character but tab. A
// header an interceptor adds passes the pipeline's outgoing check only when it is safe the same way.

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
    let usesForm = !field(12).isEmpty || !field(13).isEmpty
    let request = Request {
        Url(field(0))
        Path(field(1), field(8))
        Path(template: "/t/{a}/x{b}", ["a": field(8), "b": field(9)])
        Query(field(9), value: nil as String?)
        Query(field(2), value: queryValue)
        Header.Any(key: field(4), value: field(5))
        Method(HTTPMethod(field(6).isEmpty ? "GET" : field(6)))
        if !field(10).isEmpty { Cookie(field(10), field(11)) }
        if !field(11).isEmpty { Header.ContentType(MediaType(parsing: field(11))) }
        if usesForm {
            Method(.post)
            Form {
                Field(field(12), "value")
                DataPart(field(12), Data("x".utf8), filename: field(13), type: MediaType(parsing: field(14)))
            }
        } else if !field(7).isEmpty {
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
        _ = error.description
        return 0
    }
    guard let url = built.url, let scheme = url.scheme?.lowercased() else {
        preconditionFailure("a built request has no URL")
    }
    precondition(scheme == "http" || scheme == "https", "scheme \(scheme)")
    precondition(!(url.host ?? "").isEmpty, "no host in \(url)")
    checkHeaders(built)
    let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    precondition(items.last?.value == queryValue, "query value \(queryValue.debugDescription) did not round-trip")
    precondition(url.user == nil && url.password == nil, "credentials left in \(url)")
    if let given = URLComponents(string: field(0)), !hasDotSegment(given.percentEncodedPath) {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        precondition(!hasDotSegment(path), "a value became a dot segment in \(url)")
    }
    if usesForm { checkFormHeaders(built.httpBody ?? Data()) }

    // An interceptor adds a header from the input; the pipeline checks what is sent as it checks a built request.
    var adapted = built
    adapted.setValue(field(5), forHTTPHeaderField: field(4).isEmpty ? "X-Adapted" : field(4))
    do {
        try OutgoingRequestCheck.validate(adapted)
        checkHeaders(adapted)
    } catch {
        precondition(error.kind == .invalidRequest && !error.problems.isEmpty, "unexpected error \(error)")
    }

    _ = request.cURL
    _ = request.cURL(redactingSecrets: false)
    return 0
}

/// Whether a percent-encoded path has a `.` or `..` segment.
private func hasDotSegment(_ path: String) -> Bool {
    path.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == "." || $0 == ".." }
}

/// No header name or value with a control character, and every name a token.
private func checkHeaders(_ request: URLRequest) {
    for (name, value) in request.allHTTPHeaderFields ?? [:] {
        precondition(!name.utf8.contains { $0 < 0x21 || $0 == 0x7F }, "header name \(name.debugDescription)")
        precondition(!value.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }, "header value")
    }
}

/// Every part header of the form is one line with no control character but tab, and there are exactly three: a
/// `Content-Disposition` line per part and the data part's `Content-Type` (the text field has none).
private func checkFormHeaders(_ body: Data) {
    let lines = String(decoding: body, as: UTF8.self).components(separatedBy: "\r\n")
    let headers = lines.filter { $0.hasPrefix("Content-Disposition:") || $0.hasPrefix("Content-Type:") }
    precondition(headers.count == 3, "the form has \(headers.count) part header lines")
    for line in headers {
        precondition(
            !line.unicodeScalars.contains { ($0.value < 0x20 && $0.value != 0x09) || $0.value == 0x7F },
            "part header \(line.debugDescription)")
    }
}

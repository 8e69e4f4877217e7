import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Renders a Foundation request as a curl command line, quoting for POSIX shells.
///
/// With a ``SensitiveData`` to redact by, the values of sensitive headers, a password in the URL, sensitive query
/// parameters and sensitive members of JSON and form bodies print as `<redacted>`.
package struct CURLCommand {
    package let text: String

    /// - Parameters:
    ///   - request: The request.
    ///   - sensitive: What to redact, or nil to show everything.
    ///   - includesBody: Whether to show the body; when false, only its size is given in a comment.
    package init(_ request: URLRequest, redacting sensitive: SensitiveData?, includesBody: Bool = true) {
        var words = ["curl"]
        let method = request.httpMethod ?? "GET"
        if method == "HEAD" {
            words.append("--head")
        } else if method != "GET" {
            words += ["-X", method]
        }
        let url = request.url?.absoluteString ?? ""
        words.append(Self.quoted(sensitive?.redacting(url) ?? url))
        let fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        for (name, value) in fields {
            let shown = sensitive?.isSensitive(header: name) == true ? SensitiveData.placeholder : value
            words += ["-H", Self.quoted("\(name): \(shown)")]
        }
        if let body = request.httpBody, !body.isEmpty {
            if !includesBody {
                words.append("# \(body.count) bytes of body not shown")
            } else if let sensitive,
                let redacted = sensitive.redactedBody(
                    body, contentType: request.value(forHTTPHeaderField: "Content-Type"))
            {
                words += ["--data-binary", Self.quoted(redacted)]
            } else if let text = String(data: body, encoding: .utf8) {
                words += ["--data-binary", Self.quoted(text)]
            } else {
                words += ["--data-binary", "@-", "# \(body.count) bytes of binary data on standard input"]
            }
        }
        text = words.joined(separator: " ")
    }

    /// Quotes a word for a POSIX shell: single quotes, with embedded single quotes closed and escaped.
    static func quoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

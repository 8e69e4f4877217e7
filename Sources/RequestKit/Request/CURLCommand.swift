import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Renders a Foundation request as a curl command line, quoting for POSIX shells.
struct CURLCommand {
    /// Headers whose values are replaced by `<redacted>` unless the caller asks otherwise.
    static let secretHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    let text: String

    init(_ request: URLRequest, redactingSecrets: Bool) {
        var words = ["curl"]
        let method = request.httpMethod ?? "GET"
        if method == "HEAD" {
            words.append("--head")
        } else if method != "GET" {
            words += ["-X", method]
        }
        words.append(Self.quoted(request.url?.absoluteString ?? ""))
        let fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        for (name, value) in fields {
            let shown = redactingSecrets && Self.secretHeaders.contains(name.lowercased()) ? "<redacted>" : value
            words += ["-H", Self.quoted("\(name): \(shown)")]
        }
        if let body = request.httpBody, !body.isEmpty {
            if let text = String(data: body, encoding: .utf8) {
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

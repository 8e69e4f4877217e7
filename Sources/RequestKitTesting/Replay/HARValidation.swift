import Foundation
import RequestKit

/// What replay checks of a cassette when it loads it: a cassette is input, so every field replay uses is held to
/// what a recording could have written, and a bad one is a problem naming its entry and field, never a crash later.
///
/// Per entry: the request's method (a token) and URL (absolute http or https, or ws or wss for a WebSocket
/// handshake), both HTTP versions (`HTTP/1.0`,
/// `HTTP/1.1`, `HTTP/2`, `HTTP/2.0`, `HTTP/3`, `h2`, `h2c`, `h3`, any case, or empty as browsers write for a
/// request that got no response), every header's name (a token; HTTP/2 pseudo-headers such as `:authority` aside)
/// and value (no CR, LF, NUL or other control character but tab), the status (100–599, or 0 for no response),
/// bodies (`base64` that decodes, a side file inside the cassette's folder that exists, a file body's `_sha256`
/// and `_size`), the recorded chunks of a streamed body (sizes of 0 bytes or more that add up to the body, times
/// in milliseconds from 0 to a day that never go back), a failure's kind, and a WebSocket entry's messages
/// (`send` or `receive`, opcode 1 or 2, a binary message's data in base64).
///
/// ```swift
/// let problems = HARValidation.problems(in: log, sideFiles: sideFiles)
/// // ["entry 2, response.status: -1 is not an HTTP status (100–599, or 0 for no response)"]
/// ```
enum HARValidation {
    /// The latest a chunk may arrive after the head, in milliseconds: a day.
    static let maxChunkTime = 86_400_000.0

    /// The HTTP versions a HAR file may name (compared without regard to case), the empty one included.
    static let httpVersions: Set<String> = [
        "", "http/1.0", "http/1.1", "http/2", "http/2.0", "http/3", "http/3.0", "h2", "h2c", "h3",
    ]

    /// Every problem of `log`, one line each, naming the entry (from 1) and the field.
    static func problems(in log: HARLog, sideFiles: SideFiles) -> [String] {
        var problems: [String] = []
        for (index, entry) in log.entries.enumerated() {
            var checker = Checker(sideFiles: sideFiles)
            checker.check(entry)
            problems += checker.problems.map { "entry \(index + 1), \($0)" }
        }
        return problems
    }

    /// The problems of one entry, each `field: what is wrong`.
    private struct Checker {
        let sideFiles: SideFiles
        var problems: [String] = []

        mutating func report(_ field: String, _ message: String) {
            problems.append("\(field): \(message)")
        }

        mutating func check(_ entry: HAREntry) {
            let request = entry.request
            if !HTTPSyntax.isToken(request.method) {
                report("request.method", "\(Self.quoted(request.method)) is not an HTTP method (a token)")
            }
            if let url = URL(string: request.url), let scheme = url.scheme?.lowercased(),
                ["http", "https", "ws", "wss"].contains(scheme), !(url.host ?? "").isEmpty
            {
                // A well-formed http, https, ws or wss URL with a host.
            } else {
                report("request.url", "\(Self.quoted(request.url)) is not an absolute http, https, ws or wss URL")
            }
            checkVersion(request.httpVersion, field: "request.httpVersion")
            checkHeaders(request.headers, field: "request.headers")
            if let postData = request.postData { check(postData) }
            let response = entry.response
            let failedBeforeHead = entry.failure != nil && entry.failure?.duringBody != true
            if !(response.status == 0 || (100...599).contains(response.status)) {
                report(
                    "response.status",
                    "\(response.status) is not an HTTP status (100–599, or 0 for no response)")
            }
            checkVersion(response.httpVersion, field: "response.httpVersion")
            checkHeaders(response.headers, field: "response.headers")
            let bodyLength = checkBody(
                text: response.content.text, encoding: response.content.encoding, file: response.content.file,
                field: "response.content")
            if let chunks = response.chunks, !failedBeforeHead { check(chunks, bodyLength: bodyLength) }
            for (index, message) in (entry.webSocketMessages ?? []).enumerated() {
                let place = "_webSocketMessages[\(index)]"
                if message.type != "send" && message.type != "receive" {
                    report("\(place).type", "\(Self.quoted(message.type)) is neither \"send\" nor \"receive\"")
                }
                if message.opcode != 1 && message.opcode != 2 {
                    report("\(place).opcode", "\(message.opcode) is neither 1 (text) nor 2 (binary)")
                } else if message.opcode == 2 && Data(base64Encoded: message.data) == nil {
                    report("\(place).data", "a binary message's data is not base64")
                }
            }
            if let failure = entry.failure, failure.kind.isEmpty {
                report("_failure.kind", "is empty; it names the RequestError's kind, such as \"transport\"")
            }
        }

        mutating func checkVersion(_ version: String, field: String) {
            guard !HARValidation.httpVersions.contains(version.lowercased()) else { return }
            report(field, "\(Self.quoted(version)) is not an HTTP version (HTTP/1.0, HTTP/1.1, HTTP/2, HTTP/3, h2, h3)")
        }

        mutating func checkHeaders(_ headers: [HARNameValue], field: String) {
            for (index, header) in headers.enumerated() where !header.name.hasPrefix(":") {
                let place = "\(field)[\(index)]"
                if !HTTPSyntax.isToken(header.name) {
                    report("\(place).name", "\(Self.quoted(header.name)) is not a header name (a token)")
                }
                if let byte = HTTPSyntax.invalidValueByte(in: header.value) {
                    report(
                        "\(place).value",
                        "the value of \(Self.quoted(header.name)) contains a forbidden control character (0x"
                            + String(byte, radix: 16, uppercase: true).leftPadded(to: 2) + ")")
                }
            }
        }

        mutating func check(_ postData: HARPostData) {
            if let sha256 = postData.sha256 {
                let hex = sha256.hasPrefix("sha256:") ? sha256.dropFirst(7) : ""
                if hex.count != 64 || !hex.allSatisfy(\.isHexDigit) {
                    report("request.postData._sha256", "\(Self.quoted(sha256)) is not \"sha256:\" and 64 hex digits")
                }
                if (postData.size ?? -1) < 0 {
                    report("request.postData._size", "a file body's size must be given, 0 or more")
                }
                return
            }
            _ = checkBody(
                text: postData.text, encoding: postData.encoding, file: postData.file, field: "request.postData")
        }

        /// Checks a body's encoding and side file; its length when it can be told without reading a side file.
        mutating func checkBody(text: String?, encoding: String?, file: String?, field: String) -> Int? {
            if let file {
                if file.hasPrefix("/") || file.split(separator: "/").contains("..") {
                    report("\(field)._file", "\(Self.quoted(file)) lies outside the cassette's folder")
                    return nil
                }
                guard let size = Self.size(ofSideFile: file, in: sideFiles) else {
                    report("\(field)._file", "the side file \(Self.quoted(file)) does not exist")
                    return nil
                }
                return size
            }
            guard let text else { return 0 }
            let encodingField = field == "request.postData" ? "\(field)._encoding" : "\(field).encoding"
            switch encoding?.lowercased() {
            case nil, "": return text.utf8.count
            case "base64":
                guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                    report("\(field).text", "is marked base64 but is not base64")
                    return nil
                }
                return data.count
            default:
                report(
                    encodingField, "\(Self.quoted(encoding ?? "")) is not an encoding replay reads (base64, or none)")
                return nil
            }
        }

        mutating func check(_ chunks: [HARChunk], bodyLength: Int?) {
            var total = 0
            var previous = 0.0
            for (index, chunk) in chunks.enumerated() {
                let place = "response._chunks[\(index)]"
                if chunk.size < 0 {
                    report("\(place).size", "\(chunk.size) is not a chunk size (0 bytes or more)")
                } else {
                    total = total.addingReportingOverflow(chunk.size).overflow ? .max : total + chunk.size
                }
                if !chunk.time.isFinite || chunk.time < 0 || chunk.time > HARValidation.maxChunkTime {
                    report(
                        "\(place).time",
                        "\(chunk.time) is not a time after the head (0 to \(Int(HARValidation.maxChunkTime)) ms)")
                } else if chunk.time < previous {
                    report("\(place).time", "\(chunk.time) ms comes before the chunk before it (\(previous) ms)")
                } else {
                    previous = chunk.time
                }
            }
            if let bodyLength, total != bodyLength, !problems.contains(where: { $0.hasPrefix("response._chunks") }) {
                report("response._chunks", "the sizes add up to \(total) bytes, but the body has \(bodyLength)")
            }
        }

        /// The size of a side file, when it can be read.
        static func size(ofSideFile file: String, in sideFiles: SideFiles) -> Int? {
            let path = sideFiles.base.appendingPathComponent(file).path
            return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        }

        /// `text` quoted, with control characters made visible and at most 80 characters shown.
        static func quoted(_ text: String) -> String {
            let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
            return "\""
                + shown.unicodeScalars.map { scalar -> String in
                    switch scalar {
                    case "\r": "\\r"
                    case "\n": "\\n"
                    case "\0": "\\0"
                    case _ where scalar.value < 0x20 || scalar.value == 0x7F: "\\u{\(String(scalar.value, radix: 16))}"
                    default: String(scalar)
                    }
                }.joined() + "\""
        }
    }
}

import Foundation
import RequestKitJSON

/// Checks a document against the structure of HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): every
/// required field present with its type, optional ones typed when present, dates in ISO 8601, timings at least -1.
/// Fields starting with `_` are custom and not checked.
struct HARSchema {
    private(set) var problems: [String] = []

    /// The problems of the HAR file `data`; empty when it conforms.
    static func problems(in data: Data) -> [String] {
        var schema = HARSchema()
        guard let json = try? Json(parsing: data) else { return ["not JSON"] }
        schema.check(json, at: "")
        return schema.problems
    }

    private enum Kind: String {
        case string, number, integer, boolean, object, array
    }

    private mutating func check(_ root: Json, at path: String) {
        guard let log = field(root, "log", .object, at: path, required: true) else { return }
        field(log, "version", .string, at: "log", required: true)
        if let creator = field(log, "creator", .object, at: "log", required: true) {
            creatorFields(creator, at: "log.creator")
        }
        if let browser = field(log, "browser", .object, at: "log", required: false) {
            creatorFields(browser, at: "log.browser")
        }
        field(log, "comment", .string, at: "log", required: false)
        for (index, page) in (field(log, "pages", .array, at: "log", required: false)?.array ?? []).enumerated() {
            let at = "log.pages[\(index)]"
            date(page, "startedDateTime", at: at)
            field(page, "id", .string, at: at, required: true)
            field(page, "title", .string, at: at, required: true)
            if let timings = field(page, "pageTimings", .object, at: at, required: true) {
                field(timings, "onContentLoad", .number, at: "\(at).pageTimings", required: false)
                field(timings, "onLoad", .number, at: "\(at).pageTimings", required: false)
            }
        }
        for (index, entry) in (field(log, "entries", .array, at: "log", required: true)?.array ?? []).enumerated() {
            entryFields(entry, at: "log.entries[\(index)]")
        }
    }

    private mutating func creatorFields(_ creator: Json, at path: String) {
        field(creator, "name", .string, at: path, required: true)
        field(creator, "version", .string, at: path, required: true)
    }

    private mutating func entryFields(_ entry: Json, at path: String) {
        field(entry, "pageref", .string, at: path, required: false)
        date(entry, "startedDateTime", at: path)
        field(entry, "time", .number, at: path, required: true)
        field(entry, "cache", .object, at: path, required: true)
        field(entry, "serverIPAddress", .string, at: path, required: false)
        field(entry, "connection", .string, at: path, required: false)
        if let request = field(entry, "request", .object, at: path, required: true) {
            let at = "\(path).request"
            for name in ["method", "url", "httpVersion"] { field(request, name, .string, at: at, required: true) }
            if let url = request["url"].string, URL(string: url)?.scheme == nil {
                problems.append("\(at).url is not an absolute URL")
            }
            messageFields(request, at: at)
            nameValues(request, "queryString", at: at)
            if let postData = field(request, "postData", .object, at: at, required: false) {
                field(postData, "mimeType", .string, at: "\(at).postData", required: true)
                field(postData, "text", .string, at: "\(at).postData", required: false)
                for (index, param)
                    in (field(postData, "params", .array, at: "\(at).postData", required: false)?
                    .array ?? []).enumerated()
                {
                    field(param, "name", .string, at: "\(at).postData.params[\(index)]", required: true)
                }
            }
        }
        if let response = field(entry, "response", .object, at: path, required: true) {
            let at = "\(path).response"
            field(response, "status", .integer, at: at, required: true)
            for name in ["statusText", "httpVersion", "redirectURL"] {
                field(response, name, .string, at: at, required: true)
            }
            messageFields(response, at: at)
            if let content = field(response, "content", .object, at: at, required: true) {
                field(content, "size", .integer, at: "\(at).content", required: true)
                field(content, "compression", .integer, at: "\(at).content", required: false)
                field(content, "mimeType", .string, at: "\(at).content", required: true)
                field(content, "text", .string, at: "\(at).content", required: false)
                field(content, "encoding", .string, at: "\(at).content", required: false)
            }
        }
        if let timings = field(entry, "timings", .object, at: path, required: true) {
            for name in ["blocked", "dns", "connect", "send", "wait", "receive", "ssl"] {
                let required = ["send", "wait", "receive"].contains(name)
                if let value = field(timings, name, .number, at: "\(path).timings", required: required)?.double,
                    value < -1
                {
                    problems.append("\(path).timings.\(name) is below -1")
                }
            }
        }
    }

    /// The fields requests and responses share: cookies, headers and their sizes.
    private mutating func messageFields(_ message: Json, at path: String) {
        nameValues(message, "headers", at: path)
        for (index, cookie) in (field(message, "cookies", .array, at: path, required: true)?.array ?? []).enumerated() {
            let at = "\(path).cookies[\(index)]"
            field(cookie, "name", .string, at: at, required: true)
            field(cookie, "value", .string, at: at, required: true)
            for name in ["path", "domain", "expires"] { field(cookie, name, .string, at: at, required: false) }
            for name in ["httpOnly", "secure"] { field(cookie, name, .boolean, at: at, required: false) }
        }
        field(message, "headersSize", .integer, at: path, required: true)
        field(message, "bodySize", .integer, at: path, required: true)
    }

    private mutating func nameValues(_ parent: Json, _ key: String, at path: String) {
        for (index, pair) in (field(parent, key, .array, at: path, required: true)?.array ?? []).enumerated() {
            field(pair, "name", .string, at: "\(path).\(key)[\(index)]", required: true)
            field(pair, "value", .string, at: "\(path).\(key)[\(index)]", required: true)
        }
    }

    private mutating func date(_ parent: Json, _ key: String, at path: String) {
        guard let text = field(parent, key, .string, at: path, required: true)?.string else { return }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        if formatter.date(from: text) == nil, plain.date(from: text) == nil {
            problems.append("\(path).\(key) is not an ISO 8601 date: \(text)")
        }
    }

    @discardableResult
    private mutating func field(_ parent: Json, _ key: String, _ kind: Kind, at path: String, required: Bool) -> Json? {
        let value = parent[key]
        let name = path.isEmpty ? key : "\(path).\(key)"
        guard !value.isMissing else {
            if required { problems.append("\(name) is missing") }
            return nil
        }
        let matches: Bool
        switch kind {
        case .string: matches = value.string != nil
        case .number: matches = value.double != nil && value.string == nil
        case .integer: matches = value.int != nil && value.string == nil
        case .boolean: matches = value.bool != nil
        case .object: matches = value.entries != nil
        case .array: matches = value.array != nil
        }
        guard matches else {
            problems.append(
                "\(name) is not a\(kind == .integer || kind == .object || kind == .array ? "n" : "") \(kind.rawValue)")
            return nil
        }
        return value
    }
}

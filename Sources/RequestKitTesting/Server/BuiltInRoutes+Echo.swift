import Foundation

extension BuiltInRoutes {
    /// The echo document of `/anything`: method, raw path and query, decoded args, headers, body and URL.
    func echo(_ request: TestRequest) -> JSONValue {
        .object(echoMembers(request))
    }

    /// The members of the echo document, for routes that add their own.
    func echoMembers(_ request: TestRequest) -> [String: JSONValue] {
        let host = request.header("Host") ?? "127.0.0.1:\(core.port)"
        let url = request.target.hasPrefix("/") ? "http://\(host)\(request.target)" : request.target
        return [
            "method": .string(request.method),
            "path": .string(request.path),
            "query": .string(request.query ?? ""),
            "args": argsObject(request),
            "headers": headersObject(request.headers),
            "body": .string(request.bodyText ?? ""),
            "bodyBase64": .string(request.body.base64EncodedString()),
            "bodyLength": .number(request.body.count),
            "url": .string(url),
        ]
    }

    /// The decoded query items as an object: a repeated name maps to an array, a bare name to `""`.
    func argsObject(_ request: TestRequest) -> JSONValue {
        grouped(request.queryItems.map { (name: $0.name, value: $0.value ?? "") })
    }

    /// Header fields as an object keyed by the first spelling of each name; repeated values joined with `", "`.
    func headersObject(_ headers: [(name: String, value: String)]) -> JSONValue {
        var names: [String: String] = [:]
        var values: [String: [String]] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            if names[key] == nil { names[key] = name }
            values[key, default: []].append(value)
        }
        var object: [String: JSONValue] = [:]
        for (key, name) in names {
            object[name] = .string(values[key, default: []].joined(separator: ", "))
        }
        return .object(object)
    }

    /// Pairs as an object; a name seen more than once maps to the array of its values in order.
    func grouped(_ pairs: [(name: String, value: String)]) -> JSONValue {
        var values: [String: [String]] = [:]
        for (name, value) in pairs { values[name, default: []].append(value) }
        return .object(
            values.mapValues { list in list.count == 1 ? .string(list[0]) : .array(list.map(JSONValue.string)) })
    }
}

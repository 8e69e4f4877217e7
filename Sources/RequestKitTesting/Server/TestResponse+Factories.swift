import Foundation

extension TestResponse {
    /// A plain-text response (`text/plain; charset=utf-8`).
    ///
    /// ```swift
    /// server.route("/hello") { _ in .text("hello") }
    /// ```
    /// - Parameters:
    ///   - text: The body.
    ///   - status: The status code; `200` by default.
    public static func text(_ text: String, status: Int = 200) -> TestResponse {
        TestResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: .data(Data(text.utf8)))
    }

    /// A JSON response whose body is `data`, sent unchanged with `Content-Type: application/json`.
    ///
    /// ```swift
    /// server.route("/raw") { _ in .json(Data(#"{"id":1}"#.utf8)) }
    /// ```
    /// - Parameters:
    ///   - data: The encoded JSON document.
    ///   - status: The status code; `200` by default.
    public static func json(_ data: Data, status: Int = 200) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", "application/json")], body: .data(data))
    }

    /// A JSON response encoding `value` with sorted keys and unescaped slashes, so the bytes are stable.
    ///
    /// If encoding fails the response is a `500` whose text says why.
    ///
    /// ```swift
    /// struct Todo: Encodable { let id: Int; let title: String }
    /// server.route("/todos/{id}") { request in .json(Todo(id: 1, title: "Write tests")) }
    /// ```
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - status: The status code; `200` by default.
    public static func json(_ value: some Encodable, status: Int = 200) -> TestResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return .json(try encoder.encode(value), status: status)
        } catch {
            return .text("could not encode JSON response: \(error)", status: 500)
        }
    }

    /// A JSON response serializing a dictionary of JSON-compatible values with sorted keys and unescaped slashes.
    ///
    /// Values may be strings, numbers, booleans, `NSNull`, arrays and dictionaries. Anything else makes the
    /// response a `500` whose text says the object is not valid JSON.
    ///
    /// ```swift
    /// server.route("/user") { _ in .json(["id": 1, "name": "Ada", "admin": false]) }
    /// ```
    /// - Parameters:
    ///   - object: The top-level JSON object.
    ///   - status: The status code; `200` by default.
    public static func json(_ object: [String: Any], status: Int = 200) -> TestResponse {
        serializedJSON(object, status: status)
    }

    /// A JSON response serializing an array of JSON-compatible values; see ``json(_:status:)-([String:Any],_)``.
    ///
    /// ```swift
    /// server.route("/list") { _ in .json([1, "two", ["three": 3]]) }
    /// ```
    /// - Parameters:
    ///   - array: The top-level JSON array.
    ///   - status: The status code; `200` by default.
    public static func json(_ array: [Any], status: Int = 200) -> TestResponse {
        serializedJSON(array, status: status)
    }

    private static func serializedJSON(_ value: Any, status: Int) -> TestResponse {
        guard JSONSerialization.isValidJSONObject(value) else {
            return .text("response object is not valid JSON: \(value)", status: 500)
        }
        do {
            let data = try JSONSerialization.data(
                withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
            return .json(data, status: status)
        } catch {
            return .text("could not encode JSON response: \(error)", status: 500)
        }
    }

    /// An empty-bodied or `status N` text response, as the built-in `/status/{code}` route sends.
    ///
    /// Codes that forbid a body (1xx, 204, 304) get none; redirects get `Location: /anything`.
    ///
    /// ```swift
    /// server.route("/flaky") { _ in .status(503) }
    /// ```
    /// - Parameter code: The status code.
    public static func status(_ code: Int) -> TestResponse {
        var response: TestResponse =
            HTTPStatusReason.forbidsBody(code) ? TestResponse(status: code) : .text("status \(code)", status: code)
        if (300..<400).contains(code) && code != 304 {
            response.headers.append(("Location", "/anything"))
        }
        return response
    }

    /// A redirect to `location` with an empty body.
    ///
    /// ```swift
    /// server.route("/old") { _ in .redirect(to: "/new", status: 301) }
    /// ```
    /// - Parameters:
    ///   - location: The `Location` header value.
    ///   - status: The status code; `302` by default.
    public static func redirect(to location: String, status: Int = 302) -> TestResponse {
        TestResponse(status: status, headers: [("Location", location)])
    }

    static func json(_ value: JSONValue, status: Int = 200) -> TestResponse {
        .json(Data(value.serialized().utf8), status: status)
    }
}

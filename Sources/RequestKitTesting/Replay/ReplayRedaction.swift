import Foundation
import RequestKit

/// What a ``RecordingTransport`` removes from an exchange before it reaches the cassette, or memory shared with
/// other requests.
///
/// By default every name of `SensitiveData` is redacted, in requests and responses alike: the values of its
/// headers, of its query items, of members of JSON bodies (at any depth) and of fields of form bodies, the password
/// of a URL, the values of `Cookie` and `Set-Cookie` (the cookie names stay). A value is replaced by `<redacted>`.
/// Then each of ``rules`` runs, for what only the project knows to be secret.
///
/// Replay redacts each sent request the same way before matching it, so a request carrying a real token matches
/// the recorded one carrying `<redacted>`.
///
/// ```swift
/// var redaction = ReplayRedaction(sensitiveData: SensitiveData(headerNames: ["x-tenant-secret"]))
/// redaction.rules.append { request, response in
///     request.headers.remove("X-Debug-Session")
///     response?.headers.remove("X-Debug-Session")
/// }
/// ```
public struct ReplayRedaction: Sendable {
    /// A rule over a request and its response. Replay calls it with a nil response, on the sent request, before
    /// matching; recording calls it with the response (nil when the request failed).
    public typealias Rule = @Sendable (_ request: inout RecordedRequest, _ response: inout RecordedResponse?) -> Void

    /// The names whose values are secret; `SensitiveData`'s defaults unless given.
    public var sensitiveData: SensitiveData
    /// The project's own rules, run in order after the built-in redaction.
    public var rules: [Rule]

    /// What replaces a secret.
    static let placeholder = "<redacted>"

    /// Redaction of `sensitiveData`'s names, then of `rules`.
    ///
    /// ```swift
    /// let redaction = ReplayRedaction(sensitiveData: SensitiveData(queryNames: ["sig"]))
    /// ```
    /// - Parameters:
    ///   - sensitiveData: The secret names.
    ///   - rules: The project's own rules.
    public init(sensitiveData: SensitiveData = SensitiveData(), rules: [Rule] = []) {
        self.sensitiveData = sensitiveData
        self.rules = rules
    }

    /// `request` and `response` with every secret replaced.
    func redacted(
        _ request: RecordedRequest, _ response: RecordedResponse?
    ) -> (request: RecordedRequest, response: RecordedResponse?) {
        var request = request
        var response = response
        request.url = redacted(request.url)
        request.headers = redacted(request.headers, cookieHeader: "cookie")
        request.body = redactedBody(request.body, contentType: request.headers["Content-Type"])
        if var head = response {
            head.headers = redacted(head.headers, cookieHeader: "set-cookie")
            let body = redactedBody(head.body, contentType: head.headers["Content-Type"])
            // A shorter or longer body keeps a Content-Length that says so (unless it counts encoded bytes).
            if body != head.body, head.headers.contains("Content-Length"), !head.headers.contains("Content-Encoding") {
                head.headers.set("Content-Length", String(body.count))
            }
            head.body = body
            response = head
        }
        for rule in rules { rule(&request, &response) }
        return (request, response)
    }

    /// A sent request as replay compares it: redacted exactly as it would have been recorded.
    func redacted(_ request: RecordedRequest) -> RecordedRequest {
        redacted(request, nil).request
    }

    /// Text that may quote a URL (an error's detail), with the URL's secrets replaced.
    func redacted(_ text: String) -> String {
        sensitiveData.redacting(text)
    }

    /// `url` without a password and with its sensitive query items' values replaced.
    func redacted(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        let encodedPlaceholder = "%3Credacted%3E"
        var changed = false
        if components.percentEncodedPassword != nil {
            components.percentEncodedPassword = encodedPlaceholder
            changed = true
        }
        if let items = components.percentEncodedQueryItems {
            components.percentEncodedQueryItems = items.map { item in
                let name = item.name.removingPercentEncoding ?? item.name
                guard item.value != nil, sensitiveData.isSensitive(query: name) else { return item }
                changed = true
                return URLQueryItem(name: item.name, value: encodedPlaceholder)
            }
        }
        guard changed else { return url }
        return components.url ?? url
    }

    /// `headers` with sensitive values replaced; the cookie header (`Cookie` or `Set-Cookie`) keeps its cookie
    /// names and attributes, and loses every value.
    func redacted(_ headers: HTTPHeaders, cookieHeader: String) -> HTTPHeaders {
        HTTPHeaders(
            headers.fields.map { field in
                let name = field.name.lowercased()
                if name == cookieHeader {
                    return HTTPHeader(
                        name: field.name, value: redactedCookies(field.value, isSetCookie: name == "set-cookie"))
                }
                if name == "cookie" || name == "set-cookie" || sensitiveData.isSensitive(header: name) {
                    return HTTPHeader(name: field.name, value: Self.placeholder)
                }
                return field
            })
    }

    /// A `Cookie` value (`a=1; b=2`) or a `Set-Cookie` value (`a=1; Path=/`) with the cookies' values replaced.
    private func redactedCookies(_ value: String, isSetCookie: Bool) -> String {
        let parts = value.split(separator: ";", omittingEmptySubsequences: false)
        return parts.enumerated().map { index, part in
            guard index == 0 || !isSetCookie else { return String(part) }
            guard let equals = part.firstIndex(of: "=") else { return String(part) }
            return "\(part[..<equals])=\(Self.placeholder)"
        }.joined(separator: ";")
    }

    /// A JSON or form body with the values of sensitive members replaced; any other body as it is. A body with
    /// nothing to redact keeps its exact bytes.
    func redactedBody(_ body: Data, contentType: String?) -> Data {
        guard !body.isEmpty else { return body }
        let essence = contentType.map { MediaType(parsing: $0).essence }
        if essence == "application/x-www-form-urlencoded" {
            return redactedForm(body)
        }
        let isJSON = essence.map { $0 == "application/json" || $0.hasSuffix("+json") } ?? true
        guard isJSON, let json = try? Json(parsing: body) else { return body }
        var changed = false
        let result = redacted(json, changed: &changed)
        return changed ? result.serializedData() : body
    }

    private func redacted(_ json: Json, changed: inout Bool) -> Json {
        if let entries = json.entries {
            var redactedEntries: [(key: String, value: Json)] = []
            redactedEntries.reserveCapacity(entries.count)
            for entry in entries {
                if sensitiveData.isSensitive(query: entry.key), !entry.value.isNull {
                    changed = true
                    redactedEntries.append((entry.key, Json(string: Self.placeholder)))
                } else {
                    redactedEntries.append((entry.key, redacted(entry.value, changed: &changed)))
                }
            }
            return Json(entries: redactedEntries)
        }
        if let elements = json.array {
            return Json(elements.map { redacted($0, changed: &changed) })
        }
        return json
    }

    private func redactedForm(_ body: Data) -> Data {
        guard let text = String(data: body, encoding: .utf8) else { return body }
        var changed = false
        let fields = text.split(separator: "&", omittingEmptySubsequences: false).map { field -> String in
            guard let equals = field.firstIndex(of: "=") else { return String(field) }
            let name = String(field[..<equals])
            let decoded = name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? name
            guard sensitiveData.isSensitive(query: decoded) else { return String(field) }
            changed = true
            return "\(name)=%3Credacted%3E"
        }
        return changed ? Data(fields.joined(separator: "&").utf8) : body
    }
}

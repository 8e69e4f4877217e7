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
        var secrets = Set<String>()
        var request = request
        var response = response
        request.url = redacted(request.url, secrets: &secrets)
        request.headers = redacted(request.headers, cookieHeader: "cookie", secrets: &secrets)
        request.body = redactedBody(request.body, contentType: request.headers["Content-Type"], secrets: &secrets)
        if var head = response {
            head.headers = redacted(head.headers, cookieHeader: "set-cookie", secrets: &secrets)
            head.body = redactedBody(head.body, contentType: head.headers["Content-Type"], secrets: &secrets)
            response = head
        }
        let echoes = secrets.filter { $0.count >= Self.shortestEchoedSecret && $0 != Self.placeholder }
            .sorted { $0.count > $1.count }
        if !echoes.isEmpty {
            request.headers = Self.replacing(echoes, in: request.headers)
            request.body = Self.replacing(echoes, in: request.body)
            if var head = response {
                head.headers = Self.replacing(echoes, in: head.headers)
                head.body = Self.replacing(echoes, in: head.body)
                response = head
            }
        }
        if var head = response, head.headers.contains("Content-Length"), !head.headers.contains("Content-Encoding"),
            let original = head.headers["Content-Length"], original != String(head.body.count)
        {
            // A body redacted to another length keeps a Content-Length that says so.
            head.headers.set("Content-Length", String(head.body.count))
            response = head
        }
        for rule in rules { rule(&request, &response) }
        return (request, response)
    }

    /// Secrets shorter than this are replaced only where their name marks them, never wherever they occur, so that
    /// a password `1` does not turn every `1` of a response into a placeholder.
    static let shortestEchoedSecret = 8

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
        var secrets = Set<String>()
        return redacted(url, secrets: &secrets)
    }

    /// A body with the values of sensitive members replaced.
    func redactedBody(_ body: Data, contentType: String?) -> Data {
        var secrets = Set<String>()
        return redactedBody(body, contentType: contentType, secrets: &secrets)
    }

    private func redacted(_ url: URL, secrets: inout Set<String>) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        let encodedPlaceholder = "%3Credacted%3E"
        var changed = false
        if let password = components.percentEncodedPassword {
            secrets.insert(password)
            secrets.insert(password.removingPercentEncoding ?? password)
            components.percentEncodedPassword = encodedPlaceholder
            changed = true
        }
        if let items = components.percentEncodedQueryItems {
            components.percentEncodedQueryItems = items.map { item in
                let name = item.name.removingPercentEncoding ?? item.name
                guard let value = item.value, sensitiveData.isSensitive(query: name) else { return item }
                secrets.insert(value)
                secrets.insert(value.removingPercentEncoding ?? value)
                changed = true
                return URLQueryItem(name: item.name, value: encodedPlaceholder)
            }
        }
        guard changed else { return url }
        return components.url ?? url
    }

    /// `headers` with sensitive values replaced; the cookie header (`Cookie` or `Set-Cookie`) keeps its cookie
    /// names and attributes, and loses every value.
    private func redacted(_ headers: HTTPHeaders, cookieHeader: String, secrets: inout Set<String>) -> HTTPHeaders {
        var redactedFields: [HTTPHeader] = []
        for field in headers.fields {
            let name = field.name.lowercased()
            if name == cookieHeader {
                redactedFields.append(
                    HTTPHeader(
                        name: field.name,
                        value: redactedCookies(field.value, isSetCookie: name == "set-cookie", secrets: &secrets)))
            } else if name == "cookie" || name == "set-cookie" || sensitiveData.isSensitive(header: name) {
                secrets.insert(field.value)
                // `Bearer <token>`, `Basic <credentials>`: the credentials on their own too.
                if let space = field.value.firstIndex(of: " ") {
                    secrets.insert(String(field.value[field.value.index(after: space)...]))
                }
                redactedFields.append(HTTPHeader(name: field.name, value: Self.placeholder))
            } else {
                redactedFields.append(field)
            }
        }
        return HTTPHeaders(redactedFields)
    }

    /// A `Cookie` value (`a=1; b=2`) or a `Set-Cookie` value (`a=1; Path=/`) with the cookies' values replaced.
    private func redactedCookies(_ value: String, isSetCookie: Bool, secrets: inout Set<String>) -> String {
        let parts = value.split(separator: ";", omittingEmptySubsequences: false)
        return parts.enumerated().map { index, part in
            guard index == 0 || !isSetCookie else { return String(part) }
            guard let equals = part.firstIndex(of: "=") else { return String(part) }
            secrets.insert(String(part[part.index(after: equals)...]))
            return "\(part[..<equals])=\(Self.placeholder)"
        }.joined(separator: ";")
    }

    /// A JSON or form body with the values of sensitive members replaced; any other body as it is. A body with
    /// nothing to redact keeps its exact bytes.
    private func redactedBody(_ body: Data, contentType: String?, secrets: inout Set<String>) -> Data {
        guard !body.isEmpty else { return body }
        let essence = contentType.map { MediaType(parsing: $0).essence }
        if essence == "application/x-www-form-urlencoded" {
            return redactedForm(body, secrets: &secrets)
        }
        let isJSON = essence.map { $0 == "application/json" || $0.hasSuffix("+json") } ?? true
        guard isJSON, let json = try? Json(parsing: body) else { return body }
        let result = redacted(json, secrets: &secrets)
        return result == json ? body : result.serializedData()
    }

    private func isSensitive(member name: String) -> Bool {
        sensitiveData.isSensitive(query: name) || sensitiveData.isSensitive(header: name)
    }

    private func redacted(_ json: Json, secrets: inout Set<String>) -> Json {
        if let entries = json.entries {
            var redactedEntries: [(key: String, value: Json)] = []
            redactedEntries.reserveCapacity(entries.count)
            for entry in entries {
                if isSensitive(member: entry.key), !entry.value.isNull {
                    if let value = entry.value.string {
                        secrets.insert(value)
                        if let space = value.firstIndex(of: " ") {
                            secrets.insert(String(value[value.index(after: space)...]))
                        }
                    }
                    redactedEntries.append((entry.key, Json(string: Self.placeholder)))
                } else {
                    redactedEntries.append((entry.key, redacted(entry.value, secrets: &secrets)))
                }
            }
            return Json(entries: redactedEntries)
        }
        if let elements = json.array {
            return Json(elements.map { redacted($0, secrets: &secrets) })
        }
        return json
    }

    private func redactedForm(_ body: Data, secrets: inout Set<String>) -> Data {
        guard let text = String(data: body, encoding: .utf8) else { return body }
        var changed = false
        let fields = text.split(separator: "&", omittingEmptySubsequences: false).map { field -> String in
            guard let equals = field.firstIndex(of: "=") else { return String(field) }
            let name = String(field[..<equals])
            let decoded = name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? name
            guard sensitiveData.isSensitive(query: decoded) else { return String(field) }
            let value = String(field[field.index(after: equals)...])
            secrets.insert(value)
            secrets.insert(value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value)
            changed = true
            return "\(name)=%3Credacted%3E"
        }
        return changed ? Data(fields.joined(separator: "&").utf8) : body
    }

    /// `headers` with every occurrence of `secrets` in their values replaced.
    private static func replacing(_ secrets: [String], in headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(headers.fields.map { HTTPHeader(name: $0.name, value: replacing(secrets, in: $0.value)) })
    }

    /// A text body with every occurrence of `secrets` replaced; a body that is not UTF-8 text as it is.
    private static func replacing(_ secrets: [String], in body: Data) -> Data {
        guard !body.isEmpty, let text = String(data: body, encoding: .utf8) else { return body }
        let replaced = replacing(secrets, in: text)
        return replaced == text ? body : Data(replaced.utf8)
    }

    private static func replacing(_ secrets: [String], in text: String) -> String {
        secrets.reduce(text) { text, secret in text.replacingOccurrences(of: secret, with: placeholder) }
    }
}

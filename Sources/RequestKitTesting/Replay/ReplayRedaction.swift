import Foundation
import RequestKit

/// What a ``RecordingTransport`` removes from an exchange before it reaches the cassette, or memory shared with
/// other requests.
///
/// By default every name `SensitiveData` holds secret is redacted, in requests and responses alike (its header and
/// query names, and any name with one of its secret words, such as `refresh_token`, `client_secret` or
/// `X-Vendor-Token`): the values of those headers, of those query items, of those members of JSON bodies (at any
/// depth), of those fields of form bodies and of those parts of `multipart/form-data` bodies, the password of a URL,
/// and the values of `Cookie` and `Set-Cookie` (the cookie names stay). A value is replaced by `<redacted>`. Every
/// secret value found that way (8 characters or more) is then replaced wherever else it occurs in the exchange's
/// headers and bodies, text or not: its bytes in UTF-8, and in UTF-16 of either byte order. Then each of ``rules``
/// runs, for what only the project knows to be secret.
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
        var secrets = SensitiveData.Secrets()
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
        if !secrets.echoes.isEmpty {
            request.headers = Self.replacing(secrets, in: request.headers)
            request.body = secrets.replacingEchoes(in: request.body)
            if var head = response {
                head.headers = Self.replacing(secrets, in: head.headers)
                head.body = secrets.replacingEchoes(in: head.body)
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
        var secrets = SensitiveData.Secrets()
        return redacted(url, secrets: &secrets)
    }

    /// A body with the values of sensitive members replaced.
    func redactedBody(_ body: Data, contentType: String?) -> Data {
        var secrets = SensitiveData.Secrets()
        return redactedBody(body, contentType: contentType, secrets: &secrets)
    }

    private func redacted(_ url: URL, secrets: inout SensitiveData.Secrets) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        sensitiveData.collectSecrets(of: url, into: &secrets)
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
    private func redacted(
        _ headers: HTTPHeaders, cookieHeader: String, secrets: inout SensitiveData.Secrets
    ) -> HTTPHeaders {
        var redactedFields: [HTTPHeader] = []
        for field in headers.fields {
            let name = field.name.lowercased()
            if name == cookieHeader {
                redactedFields.append(
                    HTTPHeader(
                        name: field.name,
                        value: redactedCookies(field.value, isSetCookie: name == "set-cookie", secrets: &secrets)))
            } else if name == "cookie" || name == "set-cookie" || sensitiveData.isSensitive(header: name) {
                secrets.insert(credentials: field.value)
                redactedFields.append(HTTPHeader(name: field.name, value: Self.placeholder))
            } else {
                redactedFields.append(field)
            }
        }
        return HTTPHeaders(redactedFields)
    }

    /// A `Cookie` value (`a=1; b=2`) or a `Set-Cookie` value (`a=1; Path=/`) with the cookies' values replaced.
    private func redactedCookies(_ value: String, isSetCookie: Bool, secrets: inout SensitiveData.Secrets) -> String {
        let parts = value.split(separator: ";", omittingEmptySubsequences: false)
        return parts.enumerated().map { index, part in
            guard index == 0 || !isSetCookie else { return String(part) }
            guard let equals = part.firstIndex(of: "=") else { return String(part) }
            secrets.insert(String(part[part.index(after: equals)...]))
            return "\(part[..<equals])=\(Self.placeholder)"
        }.joined(separator: ";")
    }

    /// A JSON, form or multipart body with the values of sensitive members replaced
    /// (`SensitiveData`'s member redaction); any other body as it is. A body with nothing to redact keeps its exact
    /// bytes.
    private func redactedBody(_ body: Data, contentType: String?, secrets: inout SensitiveData.Secrets) -> Data {
        sensitiveData.redactingMembers(
            of: body, contentType: contentType, formPlaceholder: "%3Credacted%3E", secrets: &secrets) ?? body
    }

    /// `headers` with every occurrence of `secrets` in their values replaced.
    private static func replacing(_ secrets: SensitiveData.Secrets, in headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(headers.fields.map { HTTPHeader(name: $0.name, value: secrets.replacingEchoes(in: $0.value)) })
    }
}

import Foundation

extension SensitiveData {
    /// Header fields as `Name: value` lines, with the values of sensitive fields replaced by the placeholder.
    package func redactedFields(_ headers: HTTPHeaders) -> [String] {
        headers.map { field in "\(field.name): \(isSensitive(header: field.name) ? Self.placeholder : field.value)" }
    }

    /// A body as a person reads it in a description: sensitive JSON and form members redacted, URLs in text
    /// redacted, at most `limit` bytes of it shown.
    func redactedPreview(of body: Data, contentType: String?, limit: Int = 512) -> String {
        let text = redactedBody(body, contentType: contentType) ?? redacting(String(decoding: body, as: UTF8.self))
        let bytes = Array(text.utf8)
        guard bytes.count > limit else { return text }
        return String(decoding: bytes.prefix(limit), as: UTF8.self) + "… (\(body.count) bytes)"
    }
}

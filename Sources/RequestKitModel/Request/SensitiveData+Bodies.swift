import Foundation

extension SensitiveData {
    /// A body with the values of its sensitive members replaced, each value kept in `secrets`: a form
    /// (`application/x-www-form-urlencoded`: the value of a sensitive field), `multipart/form-data` (the content of a
    /// part with a sensitive name, file or not) and JSON of any other type (a sensitive member's value at any depth).
    /// Nil when the body is none of these or holds nothing to redact, so that it keeps its exact bytes.
    ///
    /// A member is sensitive when ``isSensitive(query:)`` or ``isSensitive(header:)`` says so of its name.
    ///
    /// - Parameters:
    ///   - body: The body.
    ///   - contentType: Its `Content-Type`.
    ///   - formPlaceholder: What replaces a form field's value: `<redacted>` to show, `%3Credacted%3E` to keep the
    ///     form well-formed.
    ///   - secrets: Where the values replaced are added.
    package func redactingMembers(
        of body: Data, contentType: String?, formPlaceholder: String = SensitiveData.placeholder,
        secrets: inout Secrets
    ) -> Data? {
        guard !body.isEmpty else { return nil }
        let mediaType = contentType.map { MediaType(parsing: $0) }
        switch mediaType?.essence {
        case "application/x-www-form-urlencoded":
            return redactingFields(of: body, placeholder: formPlaceholder, secrets: &secrets)
        case "multipart/form-data":
            guard let boundary = mediaType?.parameters["boundary"], !boundary.isEmpty else { return nil }
            return redactingParts(of: body, boundary: boundary, secrets: &secrets)
        default:
            return JSONBodies.redacting?.redactingMembers(of: body, by: self, secrets: &secrets)
        }
    }

    /// Whether a body member (a JSON member, a form field, a multipart part) of this name holds a secret.
    package func isSensitive(member name: String) -> Bool {
        isSensitive(query: name) || isSensitive(header: name)
    }

    private func redactingFields(of body: Data, placeholder: String, secrets: inout Secrets) -> Data? {
        let text = String(decoding: body, as: UTF8.self)
        var changed = false
        let fields = text.split(separator: "&", omittingEmptySubsequences: false).map { field -> String in
            guard let equals = field.firstIndex(of: "=") else { return String(field) }
            let name = String(field[..<equals])
            guard isSensitive(member: Self.formDecoded(name)) else { return String(field) }
            let value = String(field[field.index(after: equals)...])
            secrets.insert(value)
            secrets.insert(Self.formDecoded(value))
            changed = true
            return "\(name)=\(placeholder)"
        }
        return changed ? Data(fields.joined(separator: "&").utf8) : nil
    }

    /// A form name or value decoded: `+` is a space, then percent-decoding.
    private static func formDecoded(_ text: String) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// A multipart body with the content of each part whose name is sensitive replaced by the placeholder; nil when
    /// no part is, or the body is not made of parts between `--boundary` lines.
    private func redactingParts(of body: Data, boundary: String, secrets: inout Secrets) -> Data? {
        let bytes = [UInt8](body)
        let delimiter = Array("--\(boundary)".utf8)
        let separator = Array("\r\n\r\n".utf8)
        var replaced: [Range<Int>] = []
        guard var start = Self.find(delimiter, in: bytes, from: 0) else { return nil }
        while true {
            let afterDelimiter = start + delimiter.count
            // `--boundary--` closes the body; a part starts after `--boundary` and its line end.
            guard afterDelimiter + 2 <= bytes.count, bytes[afterDelimiter] != UInt8(ascii: "-") else { break }
            let partStart = afterDelimiter + 2
            guard let next = Self.find([13, 10] + delimiter, in: bytes, from: partStart) else { return nil }
            if let headerEnd = Self.find(separator, in: bytes, from: partStart), headerEnd < next {
                let head = String(decoding: bytes[partStart..<headerEnd], as: UTF8.self)
                if let name = Self.partName(in: head), isSensitive(member: name) {
                    let content = headerEnd + separator.count..<next
                    if let text = String(bytes: bytes[content], encoding: .utf8) { secrets.insert(credentials: text) }
                    replaced.append(content)
                }
            }
            start = next + 2
        }
        guard !replaced.isEmpty else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var copied = 0
        for range in replaced {
            output += bytes[copied..<range.lowerBound]
            output += Self.placeholder.utf8
            copied = range.upperBound
        }
        output += bytes[copied...]
        return Data(output)
    }

    /// The `name` parameter of a part's `Content-Disposition`, percent-decoded; nil without one.
    private static func partName(in head: String) -> String? {
        for line in head.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":"),
                line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == "content-disposition"
            else { continue }
            for parameter in line[line.index(after: colon)...].split(separator: ";").dropFirst() {
                guard let equals = parameter.firstIndex(of: "="),
                    parameter[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "name"
                else { continue }
                var value = parameter[parameter.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast())
                }
                return value.removingPercentEncoding ?? value
            }
        }
        return nil
    }

    /// The index of the first occurrence of `pattern` in `bytes` at or after `start`.
    private static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard let first = pattern.first, start >= 0, bytes.count - pattern.count >= start else { return nil }
        var index = start
        while index <= bytes.count - pattern.count {
            if bytes[index] == first, bytes[index..<index + pattern.count].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }
}

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SensitiveData {
    /// The secret values found in a request or a response while its secrets were redacted: the one list every place
    /// that redacts keeps, so that a secret echoed where no name marks it (a password quoted in an error page, a token
    /// in a binary body) is redacted too.
    ///
    /// ```swift
    /// var secrets = SensitiveData.Secrets()
    /// secrets.insert(credentials: "Bearer abcdefgh12345")
    /// secrets.replacingEchoes(in: "token abcdefgh12345 refused")  // "token <redacted> refused"
    /// ```
    package struct Secrets: Sendable, Hashable {
        /// Every value found, whatever its length.
        package private(set) var values: Set<String> = []

        /// No secret yet.
        package init() {}

        /// Secrets shorter than this are redacted only where their name marks them, never wherever they occur, so
        /// that a password `1` does not turn every `1` of a body into a placeholder.
        package static let shortestEcho = 8

        /// Adds a secret value.
        package mutating func insert(_ value: String) {
            guard !value.isEmpty, value != SensitiveData.placeholder else { return }
            values.insert(value)
        }

        /// Adds the value of a credential field, and what follows its scheme on its own: `Bearer <token>`,
        /// `Basic <credentials>`.
        package mutating func insert(credentials value: String) {
            insert(value)
            if let space = value.firstIndex(of: " ") {
                insert(String(value[value.index(after: space)...]).trimmingCharacters(in: .whitespaces))
            }
        }

        /// The secrets replaced wherever they occur: those of at least ``shortestEcho`` characters, longest first,
        /// so that a secret that contains another is replaced whole.
        package var echoes: [String] {
            values.filter { $0.count >= Self.shortestEcho }.sorted {
                $0.count != $1.count ? $0.count > $1.count : $0 < $1
            }
        }

        /// `text` with every occurrence of a secret replaced by `<redacted>`.
        package func replacingEchoes(in text: String) -> String {
            var text = text
            for secret in echoes { text = text.replacingOccurrences(of: secret, with: SensitiveData.placeholder) }
            return text
        }

        /// `data` with every occurrence of a secret's bytes replaced by the bytes of `<redacted>`, whatever the rest
        /// of the bytes are: a secret in UTF-8 (or ASCII, or Latin-1 for an ASCII secret), and in UTF-16 of either
        /// byte order, with the placeholder in the same encoding. The same bytes when no secret occurs.
        package func replacingEchoes(in data: Data) -> Data {
            guard !data.isEmpty else { return data }
            let echoes = echoes
            guard !echoes.isEmpty else { return data }
            var bytes = [UInt8](data)
            var changed = false
            for secret in echoes {
                let encodings: [(secret: [UInt8], placeholder: [UInt8])] = [
                    (Array(secret.utf8), Array(SensitiveData.placeholder.utf8)),
                    (Self.utf16(secret, bigEndian: false), Self.utf16(SensitiveData.placeholder, bigEndian: false)),
                    (Self.utf16(secret, bigEndian: true), Self.utf16(SensitiveData.placeholder, bigEndian: true)),
                ]
                for (pattern, replacement) in encodings where Self.replace(pattern, with: replacement, in: &bytes) {
                    changed = true
                }
            }
            return changed ? Data(bytes) : data
        }

        private static func utf16(_ text: String, bigEndian: Bool) -> [UInt8] {
            text.utf16.flatMap { unit -> [UInt8] in
                let high = UInt8(truncatingIfNeeded: unit >> 8)
                let low = UInt8(truncatingIfNeeded: unit)
                return bigEndian ? [high, low] : [low, high]
            }
        }

        /// Replaces every occurrence of `pattern` in `bytes`; whether there was one.
        private static func replace(_ pattern: [UInt8], with replacement: [UInt8], in bytes: inout [UInt8]) -> Bool {
            guard let first = pattern.first, pattern.count <= bytes.count else { return false }
            var output: [UInt8] = []
            var index = 0
            var copied = 0
            var found = false
            let last = bytes.count - pattern.count
            while index <= last {
                if bytes[index] == first, bytes[index..<index + pattern.count].elementsEqual(pattern) {
                    if !found {
                        output.reserveCapacity(bytes.count)
                        found = true
                    }
                    output += bytes[copied..<index]
                    output += replacement
                    index += pattern.count
                    copied = index
                } else {
                    index += 1
                }
            }
            guard found else { return false }
            output += bytes[copied...]
            bytes = output
            return true
        }
    }
}

extension SensitiveData {
    /// Adds the secrets `url` carries: its password and the values of its sensitive query parameters, as written
    /// and decoded.
    package func collectSecrets(of url: URL, into secrets: inout Secrets) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return }
        if let password = components.percentEncodedPassword {
            secrets.insert(password)
            secrets.insert(password.removingPercentEncoding ?? password)
        }
        for item in components.percentEncodedQueryItems ?? [] {
            guard let value = item.value, isSensitive(query: item.name.removingPercentEncoding ?? item.name) else {
                continue
            }
            secrets.insert(value)
            secrets.insert(value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value)
        }
    }

    /// Adds the values of the sensitive fields of `headers` (and the credentials after a scheme such as `Bearer`),
    /// and the value of each cookie of a `Cookie` field.
    package func collectSecrets(of headers: HTTPHeaders, into secrets: inout Secrets) {
        for field in headers.fields where isSensitive(header: field.name) {
            secrets.insert(credentials: field.value)
            guard field.name.lowercased() == "cookie" else { continue }
            for cookie in field.value.split(separator: ";") {
                guard let equals = cookie.firstIndex(of: "=") else { continue }
                secrets.insert(String(cookie[cookie.index(after: equals)...]).trimmingCharacters(in: .whitespaces))
            }
        }
    }

    /// The secrets `request` carries: in its URL, its sensitive fields and the sensitive members of its body.
    package func secrets(of request: URLRequest) -> Secrets {
        var secrets = Secrets()
        if let url = request.url { collectSecrets(of: url, into: &secrets) }
        let fields = (request.allHTTPHeaderFields ?? [:]).map { HTTPHeader(name: $0.key, value: $0.value) }
        collectSecrets(of: HTTPHeaders(fields), into: &secrets)
        if let body = request.httpBody {
            _ = redactingMembers(
                of: body, contentType: request.value(forHTTPHeaderField: "Content-Type"), secrets: &secrets)
        }
        return secrets
    }
}

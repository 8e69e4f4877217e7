import Foundation

extension SensitiveData {
    /// `text` with every secret that a URL in it carries replaced by `<redacted>`: the password of a
    /// `scheme://user:password@host` and the values of sensitive query parameters. Works on any text (a URL, a
    /// log line, an underlying error's description), so a URL that an error quotes is redacted too.
    ///
    /// ```swift
    /// SensitiveData().redacting("http://u:p@h/x?api_key=1&page=2")  // "http://u:<redacted>@h/x?api_key=<redacted>&page=2"
    /// ```
    public func redacting(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let placeholder = Array(Self.placeholder.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ":"), index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "/"),
                bytes[index + 2] == UInt8(ascii: "/")
            {
                index += 3
                output += Array("://".utf8)
                var end = index
                while end < bytes.count, !Self.endsAuthority(bytes[end]) { end += 1 }
                if let at = bytes[index..<end].lastIndex(of: UInt8(ascii: "@")),
                    let colon = bytes[index..<at].firstIndex(of: UInt8(ascii: ":"))
                {
                    output += bytes[index...colon]
                    output += placeholder
                    output += bytes[at..<end]
                } else {
                    output += bytes[index..<end]
                }
                index = end
                continue
            }
            output.append(byte)
            index += 1
            guard byte == UInt8(ascii: "?") || byte == UInt8(ascii: "&") else { continue }
            var nameEnd = index
            while nameEnd < bytes.count, Self.isNameByte(bytes[nameEnd]) { nameEnd += 1 }
            guard nameEnd > index, nameEnd < bytes.count, bytes[nameEnd] == UInt8(ascii: "=") else { continue }
            let name = String(decoding: bytes[index..<nameEnd], as: UTF8.self)
            output += bytes[index...nameEnd]
            index = nameEnd + 1
            if isSensitive(query: name.removingPercentEncoding ?? name) {
                let valueStart = index
                while index < bytes.count, !Self.endsValue(bytes[index]) { index += 1 }
                if index > valueStart { output += placeholder }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A body as text with the values of sensitive members replaced: JSON (at any depth),
    /// `application/x-www-form-urlencoded` and `multipart/form-data`
    /// (``redactingMembers(of:contentType:formPlaceholder:secrets:)``); nil when the body is none of these.
    package func redactedBody(_ body: Data, contentType: String?) -> String? {
        var secrets = Secrets()
        if let redacted = redactingMembers(of: body, contentType: contentType, secrets: &secrets) {
            return String(decoding: redacted, as: UTF8.self)
        }
        switch contentType.map({ MediaType(parsing: $0).essence }) {
        case "application/x-www-form-urlencoded": return String(decoding: body, as: UTF8.self)
        case "multipart/form-data": return nil
        default: return JSONBodies.redacting?.compactText(of: body)
        }
    }

    private static func endsAuthority(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: " "), UInt8(ascii: "\""),
            UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ","), 0x00...0x1F:
            true
        default: false
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "="), UInt8(ascii: "&"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: " "),
            UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"), 0x00...0x1F:
            false
        default: true
        }
    }

    private static func endsValue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "#"), UInt8(ascii: " "), UInt8(ascii: "\""), UInt8(ascii: "'"),
            UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ")"),
            UInt8(ascii: "]"), UInt8(ascii: "}"), 0x00...0x1F:
            true
        default: false
        }
    }
}

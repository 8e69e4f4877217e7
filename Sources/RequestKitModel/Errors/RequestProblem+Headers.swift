extension RequestProblem {
    /// What is wrong with a header, if anything: a name that is not a token, a value with a control character.
    ///
    /// Control characters are made visible in the message (`\r`, `\n`, `\0`), so it shows what was sent.
    package static func header(name: String, value: String) -> [RequestProblem] {
        var problems: [RequestProblem] = []
        if !HTTPSyntax.isToken(name) {
            problems.append(
                RequestProblem(
                    .invalidHeaderName,
                    "the header name \"\(RequestParts.escaped(name))\" is not a valid token"))
        }
        if let problem = controlCharacter(in: value, of: "the value of header \(RequestParts.escaped(name))") {
            problems.append(problem)
        }
        return problems
    }

    /// The problem of a header value (named by `subject`) with a control character, or nil when it has none.
    package static func controlCharacter(in value: String, of subject: String) -> RequestProblem? {
        guard let byte = HTTPSyntax.invalidValueByte(in: value) else { return nil }
        return RequestProblem(
            .invalidHeaderValue,
            "\(subject) contains a forbidden control character (0x"
                + String(byte, radix: 16, uppercase: true).leftPadded(to: 2) + ")")
    }
}

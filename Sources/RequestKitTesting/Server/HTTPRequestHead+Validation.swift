extension HTTPRequestHead {
    /// Checks `Host`, `Content-Length`, `Transfer-Encoding` and `Expect`, and sets the body framing.
    ///
    /// - Throws: ``HTTPRequestError`` describing the first problem found.
    mutating func validate(configuration: TestServer.Configuration) throws {
        let hosts = values(of: "Host")
        if httpVersion == "HTTP/1.1" && hosts.count != 1 {
            throw HTTPRequestError(
                status: 400, message: hosts.isEmpty ? "missing Host header" : "more than one Host header")
        }
        let lengths = values(of: "Content-Length").flatMap {
            $0.split(separator: ",", omittingEmptySubsequences: false)
        }
        .map { $0.trimmingCharacters(in: .whitespaces) }
        let codings = values(of: "Transfer-Encoding").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if !codings.isEmpty {
            guard lengths.isEmpty else {
                throw HTTPRequestError(status: 400, message: "both Content-Length and Transfer-Encoding are present")
            }
            guard httpVersion == "HTTP/1.1" else {
                throw HTTPRequestError(status: 400, message: "Transfer-Encoding is not allowed in HTTP/1.0")
            }
            guard codings.last == "chunked" else {
                throw HTTPRequestError(status: 400, message: "Transfer-Encoding must end with chunked")
            }
            guard codings.count == 1 else {
                throw HTTPRequestError(
                    status: 501, message: "unsupported transfer coding \(codings.joined(separator: ", "))")
            }
            framing = .chunked
        } else if let first = lengths.first {
            guard lengths.allSatisfy({ $0 == first }) else {
                throw HTTPRequestError(status: 400, message: "conflicting Content-Length values")
            }
            guard !first.isEmpty, first.utf8.count <= 18, first.utf8.allSatisfy(HTTPGrammar.isDigit),
                let length = Int(first)
            else {
                throw HTTPRequestError(status: 400, message: "invalid Content-Length \"\(first)\"")
            }
            guard length <= configuration.maxBodyBytes else {
                throw HTTPRequestError(
                    status: 413, message: "request body of \(length) bytes exceeds \(configuration.maxBodyBytes)")
            }
            framing = length > 0 ? .length(length) : .none
        }
        let expectations = values(of: "Expect")
        if !expectations.isEmpty {
            guard expectations.count == 1, expectations[0].lowercased() == "100-continue" else {
                throw HTTPRequestError(
                    status: 417, message: "unsupported expectation \(expectations.joined(separator: ", "))")
            }
            expectsContinue = httpVersion == "HTTP/1.1" && framing != .none
        }
    }

    private func values(of name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }
}

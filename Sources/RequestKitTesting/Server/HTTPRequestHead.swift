/// The parsed request line and header section of one request, before its body is read.
///
/// ```swift
/// let head = try HTTPRequestHead.read(from: reader, configuration: configuration, idleTimeout: .seconds(5))
/// ```
struct HTTPRequestHead: Sendable {
    /// How the request body is delimited.
    enum BodyFraming: Sendable, Equatable {
        case none
        case length(Int)
        case chunked
    }

    var method: String
    var target: String
    var httpVersion: String
    var headers: [(name: String, value: String)]
    var framing: BodyFraming
    var expectsContinue: Bool

    /// Whether the client asked to keep the connection open after this request.
    var wantsKeepAlive: Bool {
        let tokens = headers.filter { $0.name.caseInsensitiveEquals("Connection") }
            .flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if tokens.contains("close") { return false }
        return httpVersion == "HTTP/1.1" || tokens.contains("keep-alive")
    }

    /// Parses the next request head from the bytes received so far.
    ///
    /// - Throws: ``HTTPRequestError`` for a malformed or over-limit head, ``ConnectionEnd/needMore`` when it has
    ///   not all arrived (the caller rewinds the reader and tries again with more bytes).
    static func parse(from reader: ConnectionReader, configuration: TestServer.Configuration) throws -> HTTPRequestHead
    {
        reader.skipEmptyLines()
        if reader.bufferedCount == 0 { throw ConnectionEnd.needMore }
        return try readStarted(from: reader, configuration: configuration)
    }

    private static func readStarted(
        from reader: ConnectionReader, configuration: TestServer.Configuration
    ) throws -> HTTPRequestHead {
        var budget = configuration.maxHeaderBytes
        let tooLongLine = HTTPRequestError(status: 414, message: "request line is longer than \(budget) bytes")
        var line = try reader.readLine(limit: budget, tooLong: tooLongLine)
        var emptyLines = 0
        while line.isEmpty && emptyLines < 8 {
            emptyLines += 1
            line = try reader.readLine(limit: budget, tooLong: tooLongLine)
        }
        budget -= line.count + 2
        var head = try parseRequestLine(line)
        let tooLarge = HTTPRequestError(
            status: 431, message: "request header section is larger than \(configuration.maxHeaderBytes) bytes")
        head.headers = try readFields(from: reader, budget: &budget, tooLarge: tooLarge)
        try head.validate(configuration: configuration)
        return head
    }

    /// Reads header or trailer field lines up to the empty line that ends them.
    static func readFields(
        from reader: ConnectionReader, budget: inout Int, tooLarge: HTTPRequestError
    ) throws -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        while true {
            let line = try reader.readLine(limit: max(budget, 0), tooLong: tooLarge)
            budget -= line.count + 2
            if line.isEmpty { return fields }
            fields.append(try parseField(line))
        }
    }

    private static func parseRequestLine(_ line: ArraySlice<UInt8>) throws -> HTTPRequestHead {
        let parts = line.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            throw HTTPRequestError(
                status: 400,
                message: "malformed request line: expected \"METHOD target HTTP/1.1\" separated by single spaces")
        }
        guard parts[0].allSatisfy(HTTPGrammar.isTokenCharacter) else {
            throw HTTPRequestError(status: 400, message: "invalid character in request method")
        }
        guard parts[1].allSatisfy({ $0 > 32 && $0 < 127 }) else {
            throw HTTPRequestError(status: 400, message: "invalid character in request target")
        }
        let method = String(decoding: parts[0], as: UTF8.self)
        let target = String(decoding: parts[1], as: UTF8.self)
        let version = String(decoding: parts[2], as: UTF8.self)
        let isOriginForm = target.hasPrefix("/")
        let isAbsoluteForm = target.lowercased().hasPrefix("http://") || target.lowercased().hasPrefix("https://")
        let isAsteriskForm = target == "*" && method == "OPTIONS"
        let isAuthorityForm = method == "CONNECT" && !target.contains("/")
        guard isOriginForm || isAbsoluteForm || isAsteriskForm || isAuthorityForm else {
            throw HTTPRequestError(status: 400, message: "request target must start with \"/\"")
        }
        let versionBytes = Array(parts[2])
        guard versionBytes.count == 8, version.hasPrefix("HTTP/"), versionBytes[6] == UInt8(ascii: "."),
            HTTPGrammar.isDigit(versionBytes[5]), HTTPGrammar.isDigit(versionBytes[7])
        else {
            throw HTTPRequestError(status: 400, message: "malformed HTTP version \"\(version)\"")
        }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            throw HTTPRequestError(status: 505, message: "unsupported HTTP version \(version)")
        }
        return HTTPRequestHead(
            method: method, target: target, httpVersion: version, headers: [], framing: .none, expectsContinue: false)
    }

    private static func parseField(_ line: ArraySlice<UInt8>) throws -> (name: String, value: String) {
        if let first = line.first, first == 32 || first == 9 {
            throw HTTPRequestError(status: 400, message: "obsolete line folding is not allowed")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw HTTPRequestError(status: 400, message: "header line without a colon")
        }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty else {
            throw HTTPRequestError(status: 400, message: "empty header name")
        }
        if let last = name.last, last == 32 || last == 9 {
            throw HTTPRequestError(status: 400, message: "whitespace between header name and colon")
        }
        guard name.allSatisfy(HTTPGrammar.isTokenCharacter) else {
            throw HTTPRequestError(status: 400, message: "invalid character in header name")
        }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 32 || first == 9 { value = value.dropFirst() }
        while let last = value.last, last == 32 || last == 9 { value = value.dropLast() }
        guard value.allSatisfy({ $0 == 9 || $0 >= 32 && $0 != 127 }) else {
            throw HTTPRequestError(
                status: 400, message: "invalid character in value of header \(String(decoding: name, as: UTF8.self))")
        }
        return (name: String(decoding: name, as: UTF8.self), value: HTTPGrammar.text(from: value))
    }
}

import Foundation

extension BuiltInRoutes {
    /// `/basic-auth/{user}/{password}`: `200` when `Authorization: Basic` carries exactly those credentials.
    func basicAuth(_ request: TestRequest, user: String, password: String) -> TestResponse {
        let user = user.removingPercentEncoding ?? user
        let password = password.removingPercentEncoding ?? password
        if let credentials = credentials(request, scheme: "basic"),
            let decoded = Data(base64Encoded: credentials).flatMap({ String(data: $0, encoding: .utf8) }),
            decoded == "\(user):\(password)"
        {
            return .json(.object(["authenticated": .bool(true), "user": .string(user)]))
        }
        var response = TestResponse.json(.object(["authenticated": .bool(false)]), status: 401)
        response.headers.append(("WWW-Authenticate", #"Basic realm="Fake Realm""#))
        return response
    }

    /// `/bearer`: `200` with the token when `Authorization: Bearer <token>` is present, else `401`.
    func bearer(_ request: TestRequest) -> TestResponse {
        if let token = credentials(request, scheme: "bearer"), !token.isEmpty {
            return .json(.object(["authenticated": .bool(true), "token": .string(token)]))
        }
        var response = TestResponse.json(.object(["authenticated": .bool(false)]), status: 401)
        response.headers.append(("WWW-Authenticate", "Bearer"))
        return response
    }

    private func credentials(_ request: TestRequest, scheme: String) -> String? {
        guard let authorization = request.header("Authorization") else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == scheme else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// The `Cookie` header's pairs as an object.
    func cookies(_ request: TestRequest) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for field in request.headers where field.name.caseInsensitiveEquals("Cookie") {
            for pair in field.value.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else { continue }
                object[name] = .string(parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
            }
        }
        return .object(object)
    }

    /// `/cookies/set?name=value…`: a `Set-Cookie` per query item, then a `302` to `/cookies`.
    func setCookies(_ request: TestRequest) -> TestResponse {
        var response = TestResponse.redirect(to: "/cookies")
        for (name, value) in request.queryItems {
            let value = value ?? ""
            guard HeaderValidation.isValidName(name), !value.contains(";"), HeaderValidation.isValidValue(value) else {
                return Self.badRequest("invalid cookie \"\(name)\"")
            }
            response.headers.append(("Set-Cookie", "\(name)=\(value); Path=/"))
        }
        return response
    }

    /// `/cookies/delete?name…`: an expiring `Set-Cookie` per query item name, then a `302` to `/cookies`.
    func deleteCookies(_ request: TestRequest) -> TestResponse {
        var response = TestResponse.redirect(to: "/cookies")
        for (name, _) in request.queryItems {
            guard HeaderValidation.isValidName(name) else { return Self.badRequest("invalid cookie \"\(name)\"") }
            response.headers.append(
                ("Set-Cookie", "\(name)=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/"))
        }
        return response
    }

    /// `/response-headers?Name=Value…`: sends each query item as a header and echoes them as JSON.
    func responseHeaders(_ request: TestRequest) -> TestResponse {
        let pairs = request.queryItems.map { (name: $0.name, value: $0.value ?? "") }
        var response = TestResponse.json(grouped(pairs))
        for (name, value) in pairs {
            guard HeaderValidation.isValidName(name), HeaderValidation.isValidValue(value) else {
                return Self.badRequest("invalid header \"\(name)\"")
            }
            response.headers.append((name, value))
        }
        return response
    }

    /// `/etag/{etag}`: sends `ETag: "{etag}"`; a matching `If-None-Match` gets `304`, a failing `If-Match` `412`.
    func etag(_ request: TestRequest, tag: String) -> TestResponse {
        let quoted = "\"\(tag)\""
        guard HeaderValidation.isValidValue(tag), !tag.contains("\"") else {
            return Self.badRequest("invalid entity tag \"\(tag)\"")
        }
        if let ifNoneMatch = request.header("If-None-Match"), Self.entityTags(ifNoneMatch, contain: quoted) {
            return TestResponse(status: 304, headers: [("ETag", quoted)])
        }
        if let ifMatch = request.header("If-Match"), !Self.entityTags(ifMatch, contain: quoted) {
            return TestResponse(status: 412, headers: [("ETag", quoted)])
        }
        var response = TestResponse.json(echo(request))
        response.headers.append(("ETag", quoted))
        return response
    }

    /// `/cache`: `304` when the request is conditional, else the echo document with `Last-Modified` and `ETag`.
    func cache(_ request: TestRequest) -> TestResponse {
        if request.header("If-Modified-Since") != nil || request.header("If-None-Match") != nil {
            return TestResponse(status: 304)
        }
        var response = TestResponse.json(echo(request))
        response.headers.append(("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT"))
        response.headers.append(("ETag", "\"cache\""))
        return response
    }

    /// `/cache/{seconds}`: the echo document with `Cache-Control: public, max-age={seconds}`.
    func cache(_ request: TestRequest, maxAge text: String) -> TestResponse {
        guard let seconds = Int(text), seconds >= 0 else {
            return Self.badRequest("max-age must be a non-negative number of seconds, not \"\(text)\"")
        }
        var response = TestResponse.json(echo(request))
        response.headers.append(("Cache-Control", "public, max-age=\(seconds)"))
        return response
    }

    private static func entityTags(_ list: String, contain tag: String) -> Bool {
        list.split(separator: ",").contains { candidate in
            var candidate = candidate.trimmingCharacters(in: .whitespaces)
            if candidate == "*" { return true }
            if candidate.hasPrefix("W/") { candidate.removeFirst(2) }
            return candidate == tag
        }
    }
}

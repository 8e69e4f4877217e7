import Foundation

extension BuiltInRoutes {
    /// `/status/{code}`: the given status with `status {code}` as text (no body for 204 and 304).
    func status(_ text: String) -> TestResponse {
        guard let code = Int(text), (200...599).contains(code) else {
            return Self.badRequest("status code must be a number from 200 to 599, not \"\(text)\"")
        }
        return .status(code)
    }

    /// `/delay/{seconds}`: the echo document after waiting (at most 300 s), watching for the client to leave.
    func delay(_ request: TestRequest, seconds text: String) -> TestResponse {
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
            return Self.badRequest("delay must be a non-negative number of seconds, not \"\(text)\"")
        }
        let milliseconds = Int((min(seconds, 300) * 1000).rounded())
        return TestResponse.json(echo(request)).delayed(by: .milliseconds(milliseconds))
    }

    /// `/redirect/{n}` and friends: a `302` to the same route with `n - 1`, and from `1` to `/get`.
    func redirect(times text: String, prefix: String, origin: String = "") -> TestResponse {
        guard let count = Int(text), (1...100).contains(count) else {
            return Self.badRequest("redirect count must be a number from 1 to 100, not \"\(text)\"")
        }
        return .redirect(to: origin + (count == 1 ? "/get" : "\(prefix)\(count - 1)"))
    }

    /// `/redirect-to?url=…&status_code=…`: a redirect (302 by default) to `url`.
    func redirectTo(_ request: TestRequest) -> TestResponse {
        guard let location = request.queryValue("url"), !location.isEmpty else {
            return Self.badRequest("missing url query parameter")
        }
        guard HeaderValidation.isValidValue(location) else {
            return Self.badRequest("url contains characters not allowed in a header")
        }
        let codeText = request.queryValue("status_code") ?? "302"
        guard let code = Int(codeText), (300...399).contains(code) else {
            return Self.badRequest("status_code must be a number from 300 to 399, not \"\(codeText)\"")
        }
        return .redirect(to: location, status: code)
    }
}

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns Foundation's responses and errors into RequestKit's, for every URLSession-based transfer.
enum FoundationMapping {
    /// A response from Foundation's head and the body received.
    static func response(_ http: HTTPURLResponse, body: Data = Data()) -> Response {
        Response(status: HTTPStatus(code: http.statusCode), headers: headers(of: http), body: body, url: http.url)
    }

    /// The response's headers, sorted by name: Foundation keeps them in a dictionary, so the wire order is lost.
    static func headers(of response: HTTPURLResponse) -> HTTPHeaders {
        var fields: [HTTPHeader] = []
        for (key, value) in response.allHeaderFields {
            guard let name = key as? String else { continue }
            fields.append(HTTPHeader(name: name, value: value as? String ?? "\(value)"))
        }
        fields.sort { $0.name.lowercased() < $1.name.lowercased() }
        return HTTPHeaders(fields)
    }

    /// The error for a response head whose `Content-Length` breaks RFC 9110 (`1 0`, `+5`, disagreeing values),
    /// which libcurl would read leniently; nil when it is absent or valid. Both transports reject the same heads.
    static func framingError(of response: HTTPURLResponse) -> RequestError? {
        guard let value = response.value(forHTTPHeaderField: "Content-Length"),
            HTTPSyntax.contentLength(value) == nil
        else { return nil }
        let elements = value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        let isConflict = elements.count > 1 && elements.allSatisfy { HTTPSyntax.contentLengthElement($0) != nil }
        let error: HTTP1ParseError = isConflict ? .conflictingContentLength : .invalidContentLength
        return RequestError.transport(error, detail: error.reason)
    }

    /// A ``RequestError`` for what a URLSession task failed with.
    static func requestError(for error: any Error, idleTimeout: TimeInterval) -> RequestError {
        if let error = error as? RequestError { return error }
        guard let urlError = error as? URLError else { return RequestError.transport(error) }
        switch urlError.code {
        case .timedOut:
            return RequestError.timedOut("no data for \(seconds(idleTimeout)) s", underlyingError: urlError)
        case .cancelled:
            return RequestError.cancelled(underlyingError: urlError)
        default:
            return RequestError.transport(urlError)
        }
    }

    /// Seconds without a trailing `.0`, for messages.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

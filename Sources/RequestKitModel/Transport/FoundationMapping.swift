import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns Foundation's responses and errors into RequestKit's, for every URLSession-based transfer.
package enum FoundationMapping {
    /// A response from Foundation's head and the body received.
    package static func response(_ http: HTTPURLResponse, body: Data = Data()) -> Response {
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

    /// A ``RequestError`` for what a URLSession task failed with.
    ///
    /// - Parameters:
    ///   - error: The task's error.
    ///   - idleTimeout: The request's idle timeout, for the message of a timeout.
    ///   - url: The URL the task was fetching, whose host and port a connection failure names.
    package static func requestError(for error: any Error, idleTimeout: TimeInterval, url: URL?) -> RequestError {
        if let error = error as? RequestError { return error }
        guard let urlError = error as? URLError else { return RequestError.transport(error) }
        switch urlError.code {
        case .timedOut:
            return RequestError.timedOut("no data for \(seconds(idleTimeout)) s", underlyingError: urlError)
        case .cancelled:
            return RequestError.cancelled(underlyingError: urlError)
        default:
            if let failure = RequestError.tlsFailure(for: urlError.code, message: message(of: urlError)),
                let target = urlError.failingURL ?? url, let host = target.host
            {
                return RequestError.tlsFailed(
                    failure, host: host, port: target.port ?? defaultPort(of: target), reason: message(of: urlError),
                    underlyingError: urlError)
            }
            // libcurl reports a connection closed before any response as a bad response, "Empty reply from
            // server"; Apple's URLSession reports it as a lost connection.
            let isEmptyReply = urlError.code == .badServerResponse && message(of: urlError) == "Empty reply from server"
            guard let failure = isEmptyReply ? .connectionReset : RequestError.connectionFailure(for: urlError.code),
                let target = urlError.failingURL ?? url, let host = target.host
            else { return RequestError.transport(urlError) }
            return RequestError.connectionFailed(
                failure, host: host, port: target.port ?? defaultPort(of: target), underlyingError: urlError,
                reason: isEmptyReply ? "the server closed the connection before a response" : nil)
        }
    }

    /// The message Foundation gave an error, if any.
    static func message(of error: URLError) -> String? {
        error.userInfo[NSLocalizedDescriptionKey] as? String
    }

    /// The port a URL without one connects to.
    static func defaultPort(of url: URL) -> Int? {
        switch url.scheme?.lowercased() {
        case "http", "ws": 80
        case "https", "wss": 443
        default: nil
        }
    }

    /// Seconds without a trailing `.0`, for messages.
    package static func seconds(_ value: Double) -> String {
        guard value == value.rounded(), let whole = Int(exactly: value) else { return String(value) }
        return String(whole)
    }
}

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request as the pipeline built and checked it: the URL, the method, the header fields, the idle timeout and a
/// body in memory, with the authority of a plain URL already read.
///
/// The pipeline hands it to the transport inside a ``TransferRequest``. A transport that writes requests itself
/// (``NativeTransport``) sends it as it is; a `URLRequest` is made from it only when something asks for one (another
/// transport reading ``TransferRequest/urlRequest``, an interceptor, a redirect). On FoundationNetworking a
/// `URLRequest` costs about 1,700 instructions to make and release, and reading its fields back as much again: more
/// than the rest of the pipeline together.
///
/// It is what the `URLRequest` would be: ``makeURLRequest()`` makes one with the same URL, method, fields, timeout
/// and body. A class: it goes from the pipeline to the transport through several values, and a reference is copied
/// for the cost of one retain.
///
/// ```swift
/// let built = try parts.makeCheckedRequest()
/// let transfer = TransferRequest(built, body: parts.body)
/// ```
package final class BuiltRequest: Sendable {
    /// The URL, checked: http or https, with a host.
    package let url: URL
    /// The scheme, host and port of ``url``, when it is in the plain form.
    package let authority: PlainURLAuthority?
    /// The method as it is sent: a valid token (``HTTPMethod/sentForm``).
    package let method: String
    /// The header fields as written, checked. Fields of one name (in any case) are sent as one, as `URLRequest`
    /// holds them: ``fieldsAsSent``.
    package let headers: HTTPHeaders
    /// The idle timeout in seconds, finite.
    package let timeout: Double
    /// The body, when it is in memory (it is also the transfer's): the `URLRequest`'s `httpBody`.
    let body: Data?

    init(url: URL, authority: PlainURLAuthority?, method: String, headers: HTTPHeaders, timeout: Double, body: Data?) {
        self.url = url
        self.authority = authority
        self.method = method
        self.headers = headers
        self.timeout = timeout
        self.body = body
    }

    /// The `URLRequest` this request stands for.
    ///
    /// ```swift
    /// let urlRequest = built.makeURLRequest()
    /// ```
    package func makeURLRequest() -> URLRequest {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        // GET is URLRequest's own method; setting it costs a case-insensitive comparison in FoundationNetworking.
        if method != "GET" { request.httpMethod = method }
        for field in headers { request.addValue(field.value, forHTTPHeaderField: field.name) }
        if let body { request.httpBody = body }
        return request
    }

    /// The header fields as they are sent: in the order written, each name once, spelt as it was first written, with
    /// the values of every field of that name joined by commas (as `URLRequest.addValue` joins them).
    ///
    /// ```swift
    /// // X-A: 1, x-a: 2, Accept: json  →  X-A: 1,2 and Accept: json
    /// let fields = built.fieldsAsSent
    /// ```
    package var fieldsAsSent: [HTTPHeader] {
        var fields: [HTTPHeader] = []
        fields.reserveCapacity(headers.count)
        for field in headers {
            if let index = fields.firstIndex(where: { $0.hasName(field.name) }) {
                fields[index].value += "," + field.value
            } else {
                fields.append(field)
            }
        }
        return fields
    }

    /// The value sent for the fields named `name` (in any case): their values joined by commas; nil when there are
    /// none.
    ///
    /// ```swift
    /// let cookies = built.value(forField: "Cookie")
    /// ```
    package func value(forField name: String) -> String? {
        let values = headers.values(for: name)
        return values.isEmpty ? nil : values.joined(separator: ",")
    }

    /// This request with the fields named `name` replaced by one with `value`, or removed when `value` is nil.
    ///
    /// ```swift
    /// let withCookies = built.settingField("Cookie", "session=1")
    /// ```
    package func settingField(_ name: String, _ value: String?) -> BuiltRequest {
        var headers = self.headers
        headers[name] = value
        return BuiltRequest(
            url: url, authority: authority, method: method, headers: headers, timeout: timeout, body: body)
    }
}

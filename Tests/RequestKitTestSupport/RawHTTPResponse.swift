import Foundation

/// One response as read off the wire by ``RawHTTPConnection``.
package struct RawHTTPResponse: Sendable {
    package var statusLine = ""
    package var status = 0
    package var headers: [(name: String, value: String)] = []
    package var body = Data()
    package var chunkSizes: [String] = []
    package var trailers: [(name: String, value: String)] = []

    /// The first value of the header called `name`, ignoring case.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The header names in order, for asserting on exactly what was sent.
    package var headerNames: [String] { headers.map(\.name) }

    /// The body as UTF-8 text.
    package var text: String { String(decoding: body, as: UTF8.self) }
}

import Foundation

/// One response as read off the wire by ``RawHTTPConnection``.
struct RawHTTPResponse: Sendable {
    var statusLine = ""
    var status = 0
    var headers: [(name: String, value: String)] = []
    var body = Data()
    var chunkSizes: [String] = []
    var trailers: [(name: String, value: String)] = []

    /// The first value of the header called `name`, ignoring case.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The header names in order, for asserting on exactly what was sent.
    var headerNames: [String] { headers.map(\.name) }

    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }
}

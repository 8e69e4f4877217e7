import Foundation

/// A HAR 1.2 file (HTTP Archive, the format of browsers' developer tools, Charles and Proxyman): the `log` and
/// nothing else. Fields whose names start with `_` are RequestKit's own, as HAR allows; readers ignore them.
///
/// Written pretty-printed with sorted keys, so that a re-recorded cassette diffs line by line.
struct HARDocument: Codable, Sendable {
    var log: HARLog

    /// The bytes of the file: pretty-printed, keys sorted, slashes unescaped, ending with a newline.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Reads a HAR file's bytes; fields RequestKit does not use are ignored, missing optional ones are allowed.
    static func decoded(from data: Data) throws -> HARDocument {
        try JSONDecoder().decode(HARDocument.self, from: data)
    }
}

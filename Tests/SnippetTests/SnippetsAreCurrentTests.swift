import Foundation
import Testing

@Suite("Documented code")
struct SnippetsAreCurrentTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The swift blocks of a document, in order.
    static func blocks(in document: String) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current.map { $0.joined(separator: "\n") } ?? "")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test("Every swift block of the README and the articles is compiled, as currently written")
    func snippetsMatchTheDocuments() throws {
        let docc = Self.root.appendingPathComponent("Sources/RequestKit/RequestKit.docc")
        let articles = try FileManager.default.contentsOfDirectory(atPath: docc.path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "Sources/RequestKit/RequestKit.docc/\($0)" }
        var current: [String] = []
        for document in ["README.md"] + articles {
            current += try Self.blocks(in: document).enumerated().map { "\(document)#\($0.offset + 1)\n\($0.element)" }
        }
        let generated = documentedSnippets.map { "\($0.document)#\($0.index)\n\($0.code)" }
        #expect(
            current == generated,
            "README.md or an article changed: run python3 Scripts/generate-snippets.py and fix what fails to compile")
    }
}

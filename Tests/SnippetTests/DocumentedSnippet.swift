/// One swift block of README.md or a DocC article, as it was when the snippets were generated.
struct DocumentedSnippet: Sendable {
    let document: String
    let index: Int
    let code: String
}

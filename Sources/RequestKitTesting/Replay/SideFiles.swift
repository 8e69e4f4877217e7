import Foundation
import RequestKit

/// Where a cassette keeps bodies too large to read comfortably inside it: a folder beside the cassette
/// (`login-flow.har` → `login-flow.bodies/`), one file per body, named by its SHA-256, so that a body recorded twice
/// is stored once and a re-recording that changes nothing changes no file.
struct SideFiles: Sendable {
    /// The folder the cassette is in; `_file` paths are relative to it.
    let base: URL
    /// The side folder's name, relative to ``base``.
    let folderName: String
    /// Bodies longer than this many bytes go to a side file.
    let threshold: Int

    init(cassette: URL, threshold: Int) {
        base = cassette.deletingLastPathComponent()
        folderName = cassette.deletingPathExtension().lastPathComponent + ".bodies"
        self.threshold = threshold
    }

    /// Writes `body` to its side file and returns the path to put in `_file`.
    func store(_ body: Data) throws(RequestError) -> String {
        let name = "\(folderName)/\(SHA256Digest.hex(of: body)).bin"
        let url = base.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try body.write(to: url, options: .atomic)
        } catch {
            throw ReplayFailure.error("cannot write the side file \(url.path): \(error)")
        }
        return name
    }

    /// The body kept in the side file at `path` (relative to the cassette's folder).
    func load(_ path: String) throws(RequestError) -> Data {
        guard !path.hasPrefix("/"), !path.split(separator: "/").contains("..") else {
            throw ReplayFailure.error("the side file \(path) lies outside the cassette's folder")
        }
        let url = base.appendingPathComponent(path)
        do {
            return try Data(contentsOf: url)
        } catch {
            throw ReplayFailure.error("cannot read the side file \(url.path): \(error)")
        }
    }
}

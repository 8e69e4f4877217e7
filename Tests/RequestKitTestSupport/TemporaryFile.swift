import Foundation

/// A file in a fresh temporary directory, removed with its directory by ``remove()``.
package struct TemporaryFile {
    package let directory: URL
    package let url: URL

    package init(contents: Data, name: String = "file.bin") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("requestkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent(name)
        try contents.write(to: url)
    }

    /// The directory's entries, sorted.
    package var directoryEntries: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    package func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

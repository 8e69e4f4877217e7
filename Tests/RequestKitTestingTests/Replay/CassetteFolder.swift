import Foundation
import RequestKitModel
import RequestKitNativeTransport

@testable import RequestKitTesting

/// A fresh temporary folder for cassettes, removed by ``remove()``.
struct CassetteFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("requestkit-cassettes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The cassette `name` in the folder.
    func cassette(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// Every file under the folder, as text, joined: what a secret must never appear in.
    func allText() throws -> String {
        let paths = FileManager.default.enumerator(atPath: url.path)?.compactMap { $0 as? String } ?? []
        return try paths.sorted().compactMap { path -> String? in
            var isDirectory: ObjCBool = false
            let file = url.appendingPathComponent(path)
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { return nil }
            return String(decoding: try Data(contentsOf: file), as: UTF8.self)
        }.joined(separator: "\n")
    }

    /// A transport over the cassette `name`, ignoring `REQUESTKIT_RECORD_MODE` so that the test does what it says.
    func transport(
        _ name: String, mode: RecordingMode, base: any Transport = NativeTransport.shared,
        configuration: RecordingTransport.Configuration = .init()
    ) throws -> RecordingTransport {
        try RecordingTransport(
            cassette: cassette(name), mode: mode, base: base, configuration: configuration, environment: [:])
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

import Foundation
import RequestKitJSON
import Testing

/// The JSONTestSuite cases, read from the shared data folder beside the repository (`../shared/data`).
private let testSuiteFolder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // RequestKitJSONTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // the package root
    .deletingLastPathComponent()
    .appendingPathComponent("shared/data/JSONTestSuite/test_parsing")

private let testSuiteExists = FileManager.default.fileExists(atPath: testSuiteFolder.path)

private func testSuiteFiles(prefix: String) throws -> [URL] {
    try FileManager.default.contentsOfDirectory(at: testSuiteFolder, includingPropertiesForKeys: nil)
        .filter { $0.lastPathComponent.hasPrefix(prefix) && $0.pathExtension == "json" }
        .sorted { $0.lastPathComponent < $1.lastPathComponent }
}

@Suite("JSONTestSuite conformance")
struct JsonConformanceTests {
    @Test("Every y_ document is accepted", .enabled(if: testSuiteExists, "../shared/data/JSONTestSuite is absent"))
    func acceptsValidDocuments() throws {
        let files = try testSuiteFiles(prefix: "y_")
        #expect(files.count == 95)
        for file in files {
            let data = try Data(contentsOf: file)
            #expect(throws: Never.self, "\(file.lastPathComponent)") { try Json(parsing: data) }
        }
    }

    @Test("Every n_ document is rejected", .enabled(if: testSuiteExists, "../shared/data/JSONTestSuite is absent"))
    func rejectsInvalidDocuments() throws {
        let files = try testSuiteFiles(prefix: "n_")
        #expect(files.count == 188)
        for file in files {
            let data = try Data(contentsOf: file)
            #expect(throws: JsonParsingError.self, "\(file.lastPathComponent)") { try Json(parsing: data) }
        }
    }

    @Test(
        "Every i_ document is either accepted or rejected with an error",
        .enabled(if: testSuiteExists, "../shared/data/JSONTestSuite is absent"))
    func decidesImplementationDefinedDocuments() throws {
        let files = try testSuiteFiles(prefix: "i_")
        #expect(files.count == 35)
        for file in files {
            let data = try Data(contentsOf: file)
            if let value = try? Json(parsing: data) {
                #expect(try Json(parsing: value.serializedBytes()) == value, "\(file.lastPathComponent)")
            }
        }
    }
}

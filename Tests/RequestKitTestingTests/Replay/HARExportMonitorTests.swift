import Foundation
import RequestKitClient
import RequestKitDSL
import RequestKitFeatures
import RequestKitJSON
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("HARExportMonitor: a process's exchanges in a HAR file for a browser's developer tools", .wallClock)
struct HARExportMonitorTests {
    @Test("Each attempt becomes an entry, redacted, and the file conforms to HAR 1.2")
    func export() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let exporter = HARExportMonitor(file: folder.cassette("session.har"))
        let server = try TestServer()
        defer { server.stop() }
        let client = Client(baseURL: server.baseURL) { configuration in
            configuration.monitors.append(exporter)
        }
        _ = try await client.send(
            Request {
                Path("anything"); Query("api_key", value: "export-secret-1")
            })
        _ = try await client.send(
            Request {
                Path("anything"); Method(.post); Header.Authorization(.bearer("export-secret-2")); Body(["note": "hi"])
            })
        let refusing = try RefusingPort()
        _ = try? await Request {
            Url(refusing.url("/")); Monitor(exporter)
        }.send()

        #expect(exporter.writeError == nil)
        let data = try Data(contentsOf: exporter.fileURL)
        #expect(HARSchema.problems(in: data) == [])
        let text = String(decoding: data, as: UTF8.self)
        #expect(!text.contains("export-secret-1"))
        #expect(!text.contains("export-secret-2"))
        let entries = try Json(parsing: data)["log"]["entries"].array ?? []
        #expect(entries.map { $0.request.method.string ?? "" } == ["GET", "POST", "GET"])
        #expect(entries.map { $0.response.status.int ?? -1 } == [200, 200, 0])
        #expect(entries[1].request.postData.text.string == #"{"note":"hi"}"#)
        #expect(entries[2]["_failure"].connectionFailure.string == "connectionRefused")
        #expect(entries[0].response.content.text.string?.contains("\"method\"") == true)
    }
}

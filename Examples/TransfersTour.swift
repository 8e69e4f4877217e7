import Foundation
import RequestKit
import RequestKitTesting

/// Multipart uploads, downloads to a file with progress, streamed responses and Server-Sent Events.
func transfersTour(_ tour: inout Tour) async throws {
    let server = tour.server
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("requestkit-tour-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }

    tour.section("A multipart upload: a field, an in-memory image and a file streamed from disk")
    let report = folder.appendingPathComponent("report.pdf")
    try Data("%PDF-1.7 a tiny report\n".utf8).write(to: report)
    let upload = Request {
        Url(server.url("/upload"))
        Method(.post)
        Form {
            Field("title", "Quarterly report")
            DataPart("thumb", Data([0x89, 0x50, 0x4E, 0x47]), filename: "t.png", type: .png)
            FilePart("file", url: report, type: .pdf)
        }
    }
    tour.sent(upload)
    let uploaded = try await upload.json()
    tour.received("the server got \(uploaded["bytes"].int ?? 0) bytes, SHA-256 \(uploaded["sha256"].string ?? "")")

    tour.section("A download to a file, with a progress bar drawn from an AsyncSequence")
    let destination = folder.appendingPathComponent("large.bin")
    let transfer = Request { Url(server.url("/large/4194304")) }.downloadTransfer(to: destination)
    var bar = ProgressBar()
    for await progress in transfer.progress { bar.show(progress) }
    bar.finish()
    let head = try await transfer.value
    let size = try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber
    tour.received("\(head.status): the file holds \(size?.intValue ?? 0) bytes")

    tour.section("A streamed response, read line by line as it arrives")
    let lines = try await Request { Url(server.url("/stream/3")) }.stream()
    for try await line in lines.lines {
        tour.received(String(line.prefix(60)) + "…")
    }

    tour.section("Server-Sent Events, resumed with Last-Event-ID after the server drops the connection")
    let events = Request { Url(server.url("/sse?count=4&retry=100&drop=2")) }
    tour.sent(events)
    var seen = 0
    for try await event in events.events() {
        tour.received("\(event.event) #\(event.id ?? "-"): \(event.data)")
        seen += 1
        if seen == 4 { break }
    }
    let resumedFrom = server.requests.last?.header("Last-Event-ID") ?? "-"
    tour.received("reconnected once, sending Last-Event-ID: \(resumedFrom)")
}

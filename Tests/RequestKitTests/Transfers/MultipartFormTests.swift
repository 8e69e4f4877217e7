import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Multipart forms", .wallClock)
struct MultipartFormTests {
    /// A server whose `/raw` route answers with the exact body it received, and its `Content-Type`.
    private func rawServer(for wire: WireTransport) throws -> TestServer {
        let server = try wire.server()
        server.route("/raw") { request in
            TestResponse(
                headers: [
                    ("Content-Type", "application/octet-stream"),
                    ("X-Received-Type", request.header("Content-Type") ?? ""),
                ],
                body: .data(request.body))
        }
        return server
    }

    @Test("A form with a field, an in-memory part and a file arrives byte for byte", arguments: WireTransport.all)
    func roundTrip(_ transport: WireTransport) async throws {
        let server = try rawServer(for: transport)
        defer { server.stop() }
        let file = try TemporaryFile(contents: Data("%PDF-1.7 fake\n".utf8), name: "q3 report.pdf")
        defer { file.remove() }
        let form = Form {
            Field("title", "Report \"Q3\"")
            DataPart("thumb", Data([0x89, 0x50, 0x4E, 0x47]), filename: "t.png", type: .png)
            FilePart("file", url: file.url, type: .pdf)
        }
        let response = try await Request {
            Url(server.url("/raw"))
            Using(transport.transport)
            Method(.post)
            form
        }.send()
        let boundary = form.boundary
        let expected =
            "--B\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nReport \"Q3\"\r\n"
            + "--B\r\nContent-Disposition: form-data; name=\"thumb\"; filename=\"t.png\"\r\nContent-Type: image/png\r\n\r\n"
        var expectedBytes = Data(expected.replacingOccurrences(of: "--B", with: "--" + boundary).utf8)
        expectedBytes.append(contentsOf: [0x89, 0x50, 0x4E, 0x47])
        let tail =
            "\r\n--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"q3 report.pdf\"\r\n"
            + "Content-Type: application/pdf\r\n\r\n%PDF-1.7 fake\n\r\n--B--\r\n"
        expectedBytes.append(Data(tail.replacingOccurrences(of: "--B", with: "--" + boundary).utf8))
        #expect(response.body == expectedBytes)
        #expect(response.headers["X-Received-Type"] == "multipart/form-data; boundary=\(boundary)")
    }

    @Test("Names with quotes, CR and LF are escaped as the HTML standard says")
    func escaping() {
        let part = FormPart(name: "a\"b\r\nc", filename: "x\".txt", contentType: .text, data: Data())
        #expect(
            part.formParts.count == 1
                && FormPart.escapedForTesting(part) == "Content-Disposition: form-data; name=\"a%22b%0D%0Ac\"; "
                    + "filename=\"x%22.txt\"\r\nContent-Type: text/plain\r\n\r\n"
        )
    }

    @Test("Boundaries are random: 32 alphanumerics after the prefix, different every time")
    func boundaries() {
        let boundaries = (0..<50).map { _ in Form { Field("a", "b") }.boundary }
        #expect(Set(boundaries).count == 50)
        for boundary in boundaries {
            #expect(boundary.hasPrefix("RequestKit-"))
            let random = boundary.dropFirst("RequestKit-".count)
            #expect(random.count == 32 && random.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        }
    }

    @Test("A file that contains the boundary fails the upload with a clear error", arguments: WireTransport.all)
    func boundaryInFile(_ transport: WireTransport) async throws {
        let server = try rawServer(for: transport)
        defer { server.stop() }
        let file = try TemporaryFile(contents: Data(), name: "evil.bin")
        defer { file.remove() }
        let form = Form { FilePart("file", url: file.url) }
        try Data(("x" + String(repeating: "y", count: 70_000) + form.boundary + "z").utf8).write(to: file.url)
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(server.url("/raw"))
                Using(transport.transport)
                Method(.post)
                form
            }.send()
        }
        #expect(error.description.contains("contains the multipart boundary"))
    }

    @Test("A missing file is reported when the request is built")
    func missingFile() throws {
        let url = URL(fileURLWithPath: "/nonexistent/requestkit-\(UUID().uuidString).bin")
        let error = try #require(throws: RequestError.self) {
            try Request {
                Url("http://127.0.0.1:1/upload")
                Method(.post)
                Form { FilePart("file", url: url) }
            }.urlRequest()
        }
        #expect(error.kind == .invalidRequest)
        #expect(error.problems.map(\.message) == ["the body file \"\(url.path)\" does not exist or cannot be read"])
    }
}

extension FormPart {
    /// The header block, as the form writes it before the part's content.
    static func escapedForTesting(_ part: FormPart) -> String {
        let body = Form(parts: [part]).body
        let text = String(decoding: body.data, as: UTF8.self)
        let start = text.range(of: "\r\n").map(\.upperBound) ?? text.startIndex
        let end = text.range(of: "\r\n\r\n").map(\.upperBound) ?? text.endIndex
        return String(text[start..<end])
    }
}

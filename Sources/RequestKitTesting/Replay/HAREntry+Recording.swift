import Foundation
import RequestKit

extension HAREntry {
    /// How a recorded exchange went, in milliseconds: until the head, and until the body's end.
    struct Timing: Sendable {
        var started: Date
        var head: Double
        var total: Double
    }

    /// An entry for an exchange already redacted: `response` is nil when the request failed before the head.
    init(
        request: RecordedRequest, response: RecordedResponse?, chunks: [HARChunk]?, failure: HARFailure?,
        timing: Timing, sideFiles: SideFiles
    ) throws(RequestError) {
        self.init(
            startedDateTime: Self.timestamp(timing.started), time: timing.total,
            request: try HARRequest(recording: request, sideFiles: sideFiles),
            response: try HARResponse(recording: response, chunks: chunks, sideFiles: sideFiles),
            cache: HARCache(),
            timings: HARTimings(
                blocked: -1, dns: -1, connect: -1, send: 0, wait: timing.head, receive: timing.total - timing.head,
                ssl: -1),
            failure: failure)
    }

    /// `date` as HAR writes it: ISO 8601 with milliseconds, in UTC.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// A body as HAR content: text when it is UTF-8 without NUL bytes, base64 otherwise, and a side file when
    /// longer than the threshold.
    static func encodeBody(
        _ body: Data, sideFiles: SideFiles
    ) throws(RequestError) -> (text: String?, encoding: String?, file: String?) {
        if body.count > sideFiles.threshold { return (nil, nil, try sideFiles.store(body)) }
        if !body.contains(0), let text = String(data: body, encoding: .utf8) { return (text, nil, nil) }
        return (body.base64EncodedString(), "base64", nil)
    }

    /// Name-value pairs of `headers`, in their order.
    static func nameValues(_ headers: HTTPHeaders) -> [HARNameValue] {
        headers.fields.map { HARNameValue(name: $0.name, value: $0.value) }
    }
}

extension HARRequest {
    init(recording request: RecordedRequest, sideFiles: SideFiles) throws(RequestError) {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        var postData: HARPostData?
        var bodySize = request.body.count
        let mimeType = request.headers["Content-Type"] ?? ""
        if let digest = request.fileDigest {
            postData = HARPostData(mimeType: mimeType, sha256: digest.sha256, size: digest.size)
            bodySize = digest.size
        } else if !request.body.isEmpty {
            let body = try HAREntry.encodeBody(request.body, sideFiles: sideFiles)
            postData = HARPostData(mimeType: mimeType, text: body.text, encoding: body.encoding, file: body.file)
        }
        self.init(
            method: request.method, url: request.url.absoluteString, httpVersion: "HTTP/1.1", cookies: [],
            headers: HAREntry.nameValues(request.headers),
            queryString: (components?.queryItems ?? []).map { HARNameValue(name: $0.name, value: $0.value ?? "") },
            postData: postData, headersSize: -1, bodySize: bodySize)
    }
}

extension HARResponse {
    /// A response, or the placeholder of a failed request (status 0) when `response` is nil.
    init(recording response: RecordedResponse?, chunks: [HARChunk]?, sideFiles: SideFiles) throws(RequestError) {
        guard let response else {
            self.init(
                status: 0, statusText: "", httpVersion: "", cookies: [], headers: [],
                content: HARContent(size: 0, mimeType: ""), redirectURL: "", headersSize: -1, bodySize: -1)
            return
        }
        let body = try HAREntry.encodeBody(response.body, sideFiles: sideFiles)
        self.init(
            status: response.status, statusText: HTTPStatusReason.phrase(for: response.status),
            httpVersion: "HTTP/1.1", cookies: [], headers: HAREntry.nameValues(response.headers),
            content: HARContent(
                size: response.body.count, mimeType: response.headers["Content-Type"] ?? "", text: body.text,
                encoding: body.encoding, file: body.file),
            redirectURL: response.headers["Location"] ?? "", headersSize: -1, bodySize: -1,
            chunks: chunks)
    }
}

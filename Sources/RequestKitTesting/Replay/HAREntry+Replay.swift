import Foundation
import RequestKit

extension HAREntry {
    /// The request as replay matches it. HTTP/2 pseudo-headers (`:authority`), which browsers list, are left out.
    func recordedRequest(sideFiles: SideFiles) throws(RequestError) -> RecordedRequest {
        guard let url = URL(string: request.url), url.scheme != nil else {
            throw ReplayFailure.error("a recorded request has a malformed URL: \(request.url)")
        }
        var recorded = RecordedRequest(method: request.method, url: url, headers: Self.headers(request.headers))
        if let postData = request.postData {
            if let sha256 = postData.sha256 {
                recorded.fileDigest = RecordedRequest.FileDigest(sha256: sha256, size: postData.size ?? 0)
            } else {
                recorded.body = try Self.decodeBody(
                    text: postData.text, encoding: postData.encoding, file: postData.file, sideFiles: sideFiles)
            }
        }
        return recorded
    }

    /// The recorded response's head and whole body, or nil for a request that failed before its head.
    func replayedResponse(url: URL?, sideFiles: SideFiles) throws(RequestError) -> Response? {
        if failure != nil, failure?.duringBody != true { return nil }
        // Browsers write status 0 for a request that got no response (blocked, refused, aborted).
        if response.status == 0 { return nil }
        let body = try Self.decodeBody(
            text: response.content.text, encoding: response.content.encoding, file: response.content.file,
            sideFiles: sideFiles)
        return Response(
            status: HTTPStatus(code: response.status), headers: Self.headers(response.headers), body: body, url: url)
    }

    /// The failure to throw, or to end the body with, rebuilt as the `RequestError` that was recorded.
    func replayedFailure(url: URL?) -> RequestError? {
        guard let failure else {
            guard response.status == 0 else { return nil }
            return ReplayFailure.error("the recorded request got no response (status 0)")
        }
        let detail = failure.detail ?? failure.kind
        let host = url?.host ?? ""
        let port = url?.port
        let underlying = ReplayFailure(description: detail)
        if let name = failure.tlsFailure {
            return RequestError.tlsFailed(
                RequestError.TLSFailure(name), host: host, port: port, underlyingError: underlying)
        }
        if let name = failure.connectionFailure {
            return RequestError.connectionFailed(
                RequestError.ConnectionFailure(name), host: host, port: port, underlyingError: underlying)
        }
        switch RequestError.Kind(failure.kind) {
        case .timedOut: return RequestError.timedOut(detail, underlyingError: underlying)
        case .cancelled: return RequestError.cancelled(underlyingError: underlying)
        default: return RequestError.transport(underlying, detail: detail)
        }
    }

    /// The sizes and times of the chunks a streamed body arrived in; one chunk of the whole body when none were
    /// recorded (a body read whole, or a browser's entry).
    func replayedChunks(bodyLength: Int) -> [HARChunk] {
        // The cassette was checked when it was loaded (``HARValidation``); a chunk list that does not cut the body
        // exactly is never used.
        guard let chunks = response.chunks, Self.total(of: chunks) == bodyLength else {
            return bodyLength == 0 ? [] : [HARChunk(size: bodyLength, time: 0)]
        }
        return chunks
    }

    /// The sum of the chunks' sizes; nil when one is negative or the sum overflows.
    private static func total(of chunks: [HARChunk]) -> Int? {
        var total = 0
        for chunk in chunks {
            guard chunk.size >= 0 else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(chunk.size)
            guard !overflow else { return nil }
            total = sum
        }
        return total
    }

    private static func headers(_ pairs: [HARNameValue]) -> HTTPHeaders {
        HTTPHeaders(pairs.filter { !$0.name.hasPrefix(":") }.map { HTTPHeader(name: $0.name, value: $0.value) })
    }

    private static func decodeBody(
        text: String?, encoding: String?, file: String?, sideFiles: SideFiles
    ) throws(RequestError) -> Data {
        if let file { return try sideFiles.load(file) }
        guard let text else { return Data() }
        guard encoding?.lowercased() == "base64" else { return Data(text.utf8) }
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            throw ReplayFailure.error("a recorded body is marked base64 but is not")
        }
        return data
    }
}

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Transport {
    /// The default streaming: reads the whole request body into memory, calls ``send(_:)``, and hands the
    /// response body over as a single chunk. Correct for any transport, without the memory bound.
    ///
    /// ```swift
    /// let streaming = try await mockTransport.stream(TransferRequest(urlRequest))
    /// ```
    public func stream(_ request: TransferRequest) async throws -> StreamingResponse {
        var urlRequest = request.urlRequest
        if let reader = try request.makeBodyReader() {
            var body = Data()
            while let block = try reader.read(upTo: 1 << 20) { body.append(block) }
            urlRequest.httpBody = body
        }
        let response = try await send(urlRequest)
        return StreamingResponse(head: response, body: ResponseBodyStream(response.body))
    }
}

import Foundation
import Testing

@testable import RequestKitModel
@testable import RequestKitURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("How much body a URLSession transfer may receive")
struct ReceivedBodyBoundTests {
    static func head(_ headers: [String: String]) throws -> HTTPURLResponse {
        let url = try #require(URL(string: "http://127.0.0.1:9/x"))
        return try #require(
            HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers))
    }

    @Test("send is bounded by maxBodyBytes; stream by maxStreamedBodyBytes, or not at all")
    func byteLimits() throws {
        let limits = ResponseLimits(maxBodyBytes: 1000, maxStreamedBodyBytes: 5000)
        let plain = try Self.head(["Content-Length": "10"])
        #expect(ReceivedBodyBound(limits: limits, isWhole: true, head: plain).maxBytes == 1000)
        #expect(ReceivedBodyBound(limits: limits, isWhole: false, head: plain).maxBytes == 5000)
        #expect(ReceivedBodyBound(limits: ResponseLimits(), isWhole: false, head: nil).maxBytes == .max)
        let error = ReceivedBodyBound(limits: limits, isWhole: true, head: nil).error(response: nil)
        #expect(error.kind == .responseTooLarge)
        #expect(error.detail == "the response body is larger than the limit of 1000 bytes")
    }

    @Test("A compressed body of known length may decode to ratio × Content-Length, never less than 1 MiB")
    func ratio() throws {
        let small = try Self.head(["Content-Encoding": "gzip", "Content-Length": "10"])
        #expect(ReceivedBodyBound.ratioBound(of: small, ratio: 100) == 1 << 20)
        let large = try Self.head(["Content-Encoding": "identity, deflate", "Content-Length": "100000"])
        #expect(ReceivedBodyBound.ratioBound(of: large, ratio: 100) == 10_000_000)
        let huge = try Self.head(["Content-Encoding": "gzip", "Content-Length": "999999999999999999"])
        #expect(ReceivedBodyBound.ratioBound(of: huge, ratio: 100) == .max)

        let bound = ReceivedBodyBound(limits: ResponseLimits(), isWhole: true, head: large)
        #expect(bound.maxBytes == 10_000_000)
        #expect(bound.isRatio)
        #expect(
            bound.error(response: nil).detail == "the compressed response body expands more than 100 times")
        let loose = ReceivedBodyBound(limits: ResponseLimits(maxBodyBytes: 4096), isWhole: true, head: large)
        #expect(loose.maxBytes == 4096)
        #expect(!loose.isRatio)
    }

    @Test("No ratio without a coding, without a length, or with a malformed length")
    func noRatio() throws {
        for headers in [
            ["Content-Length": "10"], ["Content-Encoding": "identity", "Content-Length": "10"],
            ["Content-Encoding": "gzip"], ["Content-Encoding": "gzip", "Content-Length": "1 0"],
        ] {
            #expect(ReceivedBodyBound.ratioBound(of: try Self.head(headers), ratio: 100) == nil, "\(headers)")
        }
    }
}

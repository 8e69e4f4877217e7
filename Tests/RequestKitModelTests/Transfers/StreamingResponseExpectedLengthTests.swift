import Foundation
import RequestKitModel
import Testing

@Suite("StreamingResponse.expectedLength: the Content-Length, by the transports' rule")
struct StreamingResponseExpectedLengthTests {
    @Test(
        "A valid Content-Length is the expected length; anything else is none",
        arguments: [
            ("0", 0), ("1048576", 1_048_576), (" 42\t", 42), ("7, 7", 7),
            ("999999999999999999", 999_999_999_999_999_999),
            ("", nil), (" ", nil), ("-5", nil), ("+5", nil), ("1 0", nil), ("5, 6", nil), ("0x10", nil), ("12a", nil),
            ("1000000000000000000", nil),
        ] as [(String, Int64?)])
    func table(_ value: String, _ expected: Int64?) {
        var headers = HTTPHeaders()
        headers["Content-Length"] = value
        let response = StreamingResponse(
            head: Response(status: .ok, headers: headers), body: ResponseBodyStream(Data()))
        #expect(response.expectedLength == expected)
    }

    @Test("A response without Content-Length has no expected length")
    func absent() {
        let response = StreamingResponse(head: Response(status: .ok), body: ResponseBodyStream(Data()))
        #expect(response.expectedLength == nil)
    }
}

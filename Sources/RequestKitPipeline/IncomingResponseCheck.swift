import Foundation
import RequestKitModel

/// The first check of a response head the pipeline gets from a transport, whatever the transport: a
/// `Content-Length` must be `1*DIGIT` (RFC 9110, section 8.6), with whitespace only around it, and duplicate values
/// must agree, so that no transport's leniency (`1 0` read as 10, `+5`, `5, 6`) decides where a body ends.
/// ``NativeTransport`` applies the same rule while it parses, and marks its responses so (`hasCheckedFraming`);
/// this holds it for every other transport, and for headers changed after parsing.
enum IncomingResponseCheck {
    /// Throws a ``RequestError`` of kind ``RequestError/Kind/transport`` when `response` has a malformed
    /// `Content-Length`.
    static func validate(_ response: Response) throws(RequestError) {
        if response.hasCheckedFraming { return }
        // The common case, one value of plain digits, is settled without allocating.
        var count = 0
        var isPlainDigits = false
        let fields = response.headers.fields
        // By index: the fields are read in place, not copied one by one.
        for index in fields.indices where fields[index].hasName("Content-Length") {
            count += 1
            let value = fields[index].value.utf8
            isPlainDigits = !value.isEmpty && value.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        }
        if count == 0 || (count == 1 && isPlainDigits) { return }
        let values = response.headers.values(for: "Content-Length")
        guard !values.isEmpty, HTTPSyntax.contentLength(values.joined(separator: ",")) == nil else { return }
        let elements = values.flatMap { $0.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) }
        let isConflict = elements.count > 1 && elements.allSatisfy { HTTPSyntax.contentLengthElement($0) != nil }
        var head = response
        head.body = Data()
        throw RequestError(
            kind: .transport, response: head, underlyingError: URLError(.badServerResponse),
            detail: isConflict ? "conflicting Content-Length values" : "invalid Content-Length")
    }
}

#if os(Linux)
import Foundation
import RequestKitModel
import Testing

import RequestKitSockets

/// A ``ByteStream`` without a socket: it records what is written to it and answers reads as it is told.
private final class ScriptedStream: ByteStream {
    var readResult: (UnsafeMutableRawBufferPointer) throws -> ByteStreamResult = { _ in .wouldBlock(.readable) }
    var written: [UInt8] = []
    var hasBufferedBytes = false
    var isClosed = false

    var descriptor: Int32 { isClosed ? -1 : 42 }
    var isEndUnconfirmed: Bool { false }

    func handshake() throws -> ByteStreamResult { .transferred(0) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> ByteStreamResult { try readResult(buffer) }

    func write(_ bytes: UnsafeRawBufferPointer) throws -> ByteStreamResult {
        written += bytes
        return .transferred(bytes.count)
    }

    func close() { isClosed = true }
}

/// TLS over another ``ByteStream`` (the origin's TLS inside a tunnel that is TLS to a proxy), without sockets: the
/// session's records go through the inner stream, which it waits for, reports the failures of, and closes.
@Suite("TLS over another stream")
struct TLSStreamBridgeTests {
    private func stream(over inner: ScriptedStream) throws -> TLSByteStream {
        try TLSByteStream(over: inner, host: "origin.example", port: 443, configuration: .default)
    }

    @Test("The ClientHello goes through the inner stream, naming the origin by SNI; a blocked read waits as it did")
    func clientHelloAndReadiness() throws {
        let inner = ScriptedStream()
        let tls = try stream(over: inner)
        #expect(tls.descriptor == 42)
        #expect(try tls.handshake() == .wouldBlock(.readable))
        #expect(inner.written.prefix(1) == [0x16])  // a handshake record
        #expect(inner.written.count > 40)
        #expect(Data(inner.written).range(of: Data("origin.example".utf8)) != nil)
        // An inner TLS stream may need to write before it can read: the outer waits for what the inner waits for.
        inner.readResult = { _ in .wouldBlock(.writable) }
        #expect(try tls.handshake() == .wouldBlock(.writable))
        #expect(!tls.hasBufferedBytes)
        inner.hasBufferedBytes = true
        #expect(tls.hasBufferedBytes)
        tls.close()
        #expect(inner.isClosed)
        #expect(tls.descriptor == -1)
    }

    @Test("A failure of the inner stream is thrown as it is")
    func innerFailure() throws {
        let inner = ScriptedStream()
        let tls = try stream(over: inner)
        #expect(try tls.handshake() == .wouldBlock(.readable))
        inner.readResult = { _ in throw POSIXError(.ECONNRESET) }
        #expect(throws: POSIXError(.ECONNRESET)) { try tls.handshake() }
    }

    @Test("The inner stream ending during the handshake is a TLS handshake failure naming the origin")
    func innerEnd() throws {
        let inner = ScriptedStream()
        let tls = try stream(over: inner)
        #expect(try tls.handshake() == .wouldBlock(.readable))
        inner.readResult = { _ in .endOfStream }
        do {
            _ = try tls.handshake()
            Issue.record("expected a TLS failure")
        } catch let error as RequestError {
            #expect(error.kind == .tls)
            #expect(error.tlsFailure == .handshakeFailed)
            #expect(
                error.description
                    == "The TLS handshake with origin.example port 443 failed (the connection closed during the "
                    + "handshake)")
        }
    }

    @Test("Bytes from the inner stream that are not TLS fail the handshake with a typed TLS error")
    func notTLS() throws {
        let inner = ScriptedStream()
        let tls = try stream(over: inner)
        #expect(try tls.handshake() == .wouldBlock(.readable))
        let answer = Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8)
        inner.readResult = { buffer in
            buffer.copyBytes(from: answer)
            return .transferred(answer.count)
        }
        do {
            _ = try tls.handshake()
            Issue.record("expected a TLS failure")
        } catch let error as RequestError {
            #expect(error.kind == .tls)
            #expect(error.description.contains("origin.example port 443"))
        }
    }
}
#endif

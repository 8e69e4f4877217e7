import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

/// Which transport opens a socket: the one ``Using`` names when it can open a WebSocket, and never the native
/// transport in place of one that cannot.
@Suite("WebSocket transport choice", .wallClock)
struct WebSocketTransportChoiceTests {
    /// A transport that answers every request itself and cannot open a WebSocket.
    final class CannedTransport: Transport {
        func stream(_ request: TransferRequest) async throws -> StreamingResponse {
            throw RequestError.transport(CancellationError(), detail: "CannedTransport sends nothing")
        }
    }

    @Test(
        "a transport that cannot open a WebSocket is an invalidRequest naming it, and nothing reaches the server",
        arguments: [
            ("URLSessionTransport", URLSessionTransport() as any Transport),
            ("CannedTransport", CannedTransport() as any Transport),
        ])
    func refusesOtherTransports(name: String, transport: any Transport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let error = await #expect(throws: RequestError.self) {
            _ = try await WebSocket {
                Url("ws://127.0.0.1:\(server.port)/websocket/echo")
                Using(transport)
            }.connect()
        }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.problems.map(\.kind) == [.invalidComponent])
        #expect(
            error?.problems.first?.message
                == "a WebSocket needs the native transport, and Using(\(name)) names one that cannot open it: "
                + "use NativeTransport, or a RecordingTransport over it")
        #expect(server.requests.isEmpty)
    }

    @Test("a native transport that Using names opens the socket; none named means the shared one")
    func nativeTransports() throws {
        let own = NativeTransport()
        #expect(try WebSocket.opening(own) as AnyObject === own)
        #expect(try WebSocket.opening(nil) as AnyObject === NativeTransport.shared)
    }
}

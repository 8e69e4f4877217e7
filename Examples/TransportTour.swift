import Foundation
import RequestKit
import RequestKitTesting

/// The native HTTP/1.1 transport, next to the default URLSession one.
func transportTour(_ tour: inout Tour) async throws {
    let server = tour.server

    tour.section("The same request over the native HTTP/1.1 transport")
    let transport = NativeTransport()
    let before = server.stats.totalConnections
    for index in 1...3 {
        let response = try await Request {
            Url(server.url("/anything/native"))
            Query("n", value: index)
            Using(transport)
        }.send()
        let headers = server.requests.last?.headers.map(\.name).joined(separator: ", ") ?? ""
        tour.received("\(response.status); the server saw \(tour.lastServerRequest) with \(headers)")
    }
    tour.received("3 requests over \(server.stats.totalConnections - before) kept-alive connection")
    transport.closeIdleConnections()
}

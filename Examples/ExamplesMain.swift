import Foundation
import RequestKit
import RequestKitTesting

/// A tour of RequestKit against an in-process HTTP server on 127.0.0.1: no internet needed.
@main
struct ExamplesMain {
    static func main() async {
        let server: TestServer
        do {
            server = try TestServer()
        } catch {
            print("Could not start the loopback server: \(error)")
            exit(1)
        }
        defer { server.stop() }
        print(
            "RequestKit \(RequestKitInfo.version) tour, against the loopback server at \(server.baseURL.absoluteString)"
        )

        var tour = Tour(server: server)
        do {
            try await coreTour(&tour)
            await scriptTour(&tour)
            try await compositionTour(&tour)
            try await clientTour(&tour)
            try await transfersTour(&tour)
            try await transportTour(&tour)
            print("\nDone: \(server.stats.requestCount) requests served.")
        } catch {
            print("\nThe tour failed: \(error)")
            exit(1)
        }
    }
}

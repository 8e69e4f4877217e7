import Foundation
import RequestKit
import RequestKitTesting

/// Prints each step of the tour: what was sent and what came back.
struct Tour {
    let server: TestServer
    private(set) var step = 0

    /// Starts a numbered step with a title.
    mutating func section(_ title: String) {
        step += 1
        print("\n\(step). \(title)")
    }

    /// Prints the request as a curl command.
    func sent(_ request: some RequestRepresentable) {
        print("   → \(request.cURL)")
    }

    /// Prints one line of what came back.
    func received(_ text: String) {
        print("   ← \(text)")
    }

    /// The last request the server saw, as "METHOD target".
    var lastServerRequest: String {
        guard let last = server.requests.last else { return "(nothing)" }
        return "\(last.method) \(last.target)"
    }
}

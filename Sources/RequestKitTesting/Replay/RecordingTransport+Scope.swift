import Foundation
import RequestKit

extension RecordingTransport {
    /// The transport of the cassette in scope: set by the `.cassette(_:)` test trait and by
    /// ``withCassette(_:mode:folder:base:configuration:filePath:_:)``; nil outside them.
    ///
    /// ```swift
    /// @Test(.cassette("todos"))
    /// func todos() async throws {
    ///     let transport = try #require(RecordingTransport.current)
    ///     let todos = try await Request { Url("https://api.example.com/todos"); Using(transport) }.json()
    ///     #expect(todos.array?.count == 2)
    /// }
    /// ```
    @TaskLocal public static var current: RecordingTransport?

    /// The folder cassettes live in by default: `Cassettes/` beside the test file.
    ///
    /// ```swift
    /// let folder = RecordingTransport.cassetteFolder(for: #filePath)
    /// ```
    /// - Parameter filePath: The test file's path.
    /// - Returns: The folder `Cassettes` in the test file's folder.
    public static func cassetteFolder(for filePath: String) -> URL {
        URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Cassettes")
    }

    /// Runs `body` with a transport over the cassette `name` (`<name>.har` in `folder`), which is also
    /// ``current`` meanwhile. Works in any test, Swift Testing's or XCTest's.
    ///
    /// ```swift
    /// func testLogin() async throws {
    ///     try await RecordingTransport.withCassette("login") { transport in
    ///         let token = try await Request { Url("https://api.example.com/login"); Using(transport) }.json()
    ///         XCTAssertEqual(token.kind.string, "bearer")
    ///     }
    /// }
    /// ```
    /// - Parameters:
    ///   - name: The cassette's name, without `.har`.
    ///   - mode: What to do with it, unless `REQUESTKIT_RECORD_MODE` says otherwise.
    ///   - folder: The folder; `Cassettes/` beside the calling file unless given.
    ///   - base: The transport that sends what is recorded.
    ///   - configuration: Matching, redaction and storage.
    ///   - filePath: The calling file, which places the default folder.
    ///   - body: The code to run.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or a `RequestError` when the cassette is needed but cannot be read.
    public static func withCassette<Result: Sendable>(
        _ name: String, mode: RecordingMode = .replayOnly, folder: URL? = nil,
        base: any Transport = NativeTransport.shared, configuration: Configuration = Configuration(),
        filePath: String = #filePath, _ body: (RecordingTransport) async throws -> Result
    ) async throws -> Result {
        let folder = folder ?? cassetteFolder(for: filePath)
        let transport = try RecordingTransport(
            cassette: folder.appendingPathComponent("\(name).har"), mode: mode, base: base,
            configuration: configuration)
        return try await $current.withValue(transport) { try await body(transport) }
    }
}

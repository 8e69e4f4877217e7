#if canImport(Testing) && compiler(>=6.1)
import Foundation
import RequestKit
import Testing

/// A Swift Testing trait that runs a test with a ``RecordingTransport`` over a named cassette, available as
/// ``RecordingTransport/current`` in the test.
///
/// ```swift
/// @Test(.cassette("login-flow"))
/// func loginFlow() async throws {
///     let transport = try #require(RecordingTransport.current)
///     let token = try await Request { Url("https://api.example.com/login"); Method(.post); Using(transport) }.json()
///     #expect(token.expires_in.int == 3600)
/// }
/// ```
public struct CassetteTrait: TestTrait, TestScoping {
    /// The cassette's name, without `.har`.
    public let name: String
    /// What to do with it, unless `REQUESTKIT_RECORD_MODE` says otherwise.
    public let mode: RecordingMode
    /// The folder the cassette lives in.
    public let folder: URL
    /// The transport that sends what is recorded.
    public let base: any Transport
    /// Matching, redaction and storage.
    public let configuration: RecordingTransport.Configuration

    /// Runs the test with the cassette's transport as ``RecordingTransport/current``.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await RecordingTransport.withCassette(
            name, mode: mode, folder: folder, base: base, configuration: configuration
        ) { _ in try await function() }
    }
}

extension Trait where Self == CassetteTrait {
    /// Runs the test with a ``RecordingTransport`` over the cassette `name`: `Cassettes/<name>.har` beside the test
    /// file unless a folder is given.
    ///
    /// ```swift
    /// @Test(.cassette("todos", mode: .recordOnce))
    /// func todos() async throws {
    ///     let transport = try #require(RecordingTransport.current)
    ///     _ = try await Request { Url("https://api.example.com/todos"); Using(transport) }.data()
    /// }
    /// ```
    /// - Parameters:
    ///   - name: The cassette's name, without `.har`.
    ///   - mode: What to do with it, unless `REQUESTKIT_RECORD_MODE` says otherwise.
    ///   - folder: The folder; `Cassettes/` beside the test file unless given.
    ///   - base: The transport that sends what is recorded.
    ///   - configuration: Matching, redaction and storage.
    ///   - filePath: The test file, which places the default folder.
    /// - Returns: The trait.
    public static func cassette(
        _ name: String, mode: RecordingMode = .replayOnly, folder: URL? = nil,
        base: any Transport = NativeTransport.shared,
        configuration: RecordingTransport.Configuration = RecordingTransport.Configuration(),
        filePath: String = #filePath
    ) -> Self {
        CassetteTrait(
            name: name, mode: mode, folder: folder ?? RecordingTransport.cassetteFolder(for: filePath), base: base,
            configuration: configuration)
    }
}
#endif

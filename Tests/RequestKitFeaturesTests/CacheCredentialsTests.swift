import Foundation
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import Testing

/// A cache given to one client that serves many users: by default each response to a request with credentials is
/// kept for those credentials alone (by a digest of them), so no user is answered with another's response.
@Suite(
    "ResponseCache and credentials: one user's response never answers another's", .timeLimit(.minutes(5)), .wallClock)
struct CacheCredentialsTests {
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case memory, disk
        var testDescription: String { rawValue }
    }

    /// How a request carries its user's credentials.
    enum Credential: String, CaseIterable, CustomTestStringConvertible {
        case authorization, cookie, vendorToken
        var testDescription: String { rawValue }

        func component(_ user: String) -> any RequestComponent {
            switch self {
            case .authorization: Header.Authorization(.bearer("token-of-\(user)"))
            case .cookie: Header.Any(key: "Cookie", value: "session=session-of-\(user)")
            case .vendorToken: Header.Any(key: "X-Vendor-Token", value: "vendor-token-of-\(user)")
            }
        }
    }

    /// A cache of `store`'s kind on a test clock, in front of an origin whose `/me` says `public, max-age=60` (which
    /// RFC 9111 lets a cache store even for a request with `Authorization`) and answers with its request count.
    struct Setup {
        let origin: CacheOrigin
        let clock = TestClock()
        let cache: ResponseCache
        let directory: URL

        init(_ store: Store, sharesAcrossCredentials: Bool = false) throws {
            directory = DiskCacheStoreTests.directory()
            let storage: ResponseCache.Storage =
                store == .memory ? .memory(maxBytes: 1 << 20) : .disk(at: directory, maxBytes: 1 << 20)
            let cache = ResponseCache(
                storage, clock: RequestClock(clock), sharesAcrossCredentials: sharesAcrossCredentials)
            origin = try CacheOrigin(now: { cache.now })
            origin.route("/me", [("Cache-Control", "public, max-age=60")])
            self.cache = cache
        }

        /// The body `/me` answers `user` (nil: no credentials) with, and where it came from.
        func me(_ user: String?, _ credential: Credential, method: HTTPMethod = .get) async throws -> String {
            let response = try await Request {
                Url(origin.url("/me")); Cache(cache); Method(method)
                if let user { credential.component(user) }
            }.send()
            return "\(String(decoding: response.body, as: UTF8.self)) \(response.cacheStatus)"
        }

        func removeDirectory() { try? FileManager.default.removeItem(at: directory) }
    }

    @Test(
        "A response stored for one user's credentials answers that user alone: not another user, not an anonymous request",
        arguments: Store.allCases, Credential.allCases)
    func keptPerCredentials(_ store: Store, _ credential: Credential) async throws {
        let setup = try Setup(store)
        defer { setup.removeDirectory() }
        var answers: [String] = []
        for user in ["ann", "ann", "bob", nil, nil, "bob", "ann"] as [String?] {
            answers.append(try await setup.me(user, credential))
        }
        #expect(answers == ["1 network", "1 hit", "2 network", "3 network", "3 hit", "2 hit", "1 hit"])
        #expect(setup.origin.count("/me") == 3)
    }

    @Test(
        "sharesAcrossCredentials: true keeps one response for everyone, as a single user's cache may",
        arguments: Store.allCases)
    func shared(_ store: Store) async throws {
        let setup = try Setup(store, sharesAcrossCredentials: true)
        defer { setup.removeDirectory() }
        var answers: [String] = []
        for user in ["ann", "bob", nil] as [String?] { answers.append(try await setup.me(user, .authorization)) }
        #expect(answers == ["1 network", "1 hit", "1 hit"])
        #expect(setup.cache.sharesAcrossCredentials && !ResponseCache(.memory()).sharesAcrossCredentials)
    }

    @Test(
        "An unsafe request by one user invalidates the URL for every user; remove(url) forgets every user's",
        arguments: Store.allCases)
    func invalidation(_ store: Store) async throws {
        let setup = try Setup(store)
        defer { setup.removeDirectory() }
        for user in ["ann", "bob", nil] as [String?] { _ = try await setup.me(user, .cookie) }
        _ = try await setup.me("ann", .cookie, method: .post)
        var answers: [String] = []
        for user in ["ann", "bob", nil] as [String?] { answers.append(try await setup.me(user, .cookie)) }
        #expect(answers == ["5 network", "6 network", "7 network"])
        setup.cache.remove(setup.origin.url("/me"))
        answers = []
        for user in ["ann", "bob", nil] as [String?] { answers.append(try await setup.me(user, .cookie)) }
        #expect(answers == ["8 network", "9 network", "10 network"])
    }

    @Test("The cache keys by a SHA-256 digest of the credentials, never their values")
    func digestNotValue() async throws {
        let setup = try Setup(.disk)
        defer { setup.removeDirectory() }
        _ = try await setup.me("ann", .vendorToken)
        let files = try FileManager.default.contentsOfDirectory(atPath: setup.directory.path)
        #expect(files.count == 1)
        let stored = try files.map { try Data(contentsOf: setup.directory.appendingPathComponent($0)) }
        #expect(stored.allSatisfy { $0.range(of: Data("vendor-token-of-ann".utf8)) == nil })
        let headers = HTTPHeaders([
            HTTPHeader(name: "x-vendor-token", value: "vendor-token-of-ann"), HTTPHeader(name: "Accept", value: "*/*"),
        ])
        let digest = try #require(CredentialDigest(of: headers, sensitiveData: SensitiveData()))
        // SHA-256 of the length-prefixed name and value, by the system's crypto library.
        var message: [UInt8] = []
        for text in ["x-vendor-token", "vendor-token-of-ann"] {
            message += withUnsafeBytes(of: UInt64(text.utf8.count).bigEndian) { Array($0) } + text.utf8
        }
        #expect(digest.hex == SHA256Digest.hex(of: Data(message)))
        #expect(stored.allSatisfy { $0.range(of: Data(digest.hex.utf8)) != nil })
        #expect(CredentialDigest(of: ["Accept": "*/*"], sensitiveData: SensitiveData()) == nil)
        let reordered = HTTPHeaders([
            HTTPHeader(name: "Accept", value: "*/*"), HTTPHeader(name: "X-Vendor-Token", value: "vendor-token-of-ann"),
        ])
        #expect(CredentialDigest(of: reordered, sensitiveData: SensitiveData()) == digest)
    }
}

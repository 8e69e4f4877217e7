// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "RequestKit",
    platforms: [
        .macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1),
    ],
    products: [
        .library(name: "RequestKit", targets: ["RequestKit"]),
        .library(name: "RequestKitTesting", targets: ["RequestKitTesting"]),
    ],
    targets: [
        // The system zlib, for decompressing gzip and deflate response bodies in HTTP1Transport: part of every
        // Linux distribution and Apple SDK, so RequestKit still has no package dependencies.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        // epoll and eventfd for HTTP1Transport's event loop on Linux (the Glibc module does not export them); an
        // empty module on Apple platforms, which use kqueue from Darwin.
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        // The system OpenSSL 3, for TLS on Linux: Debian's libssl-dev. Apple platforms never link it (the native
        // transport hands https to URLSession there), so the dependency and every use of it are Linux-only.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", providers: [.apt(["libssl-dev"])]),
        .target(
            name: "RequestKit",
            dependencies: ["CZlib", "CEpoll", .target(name: "COpenSSL", condition: .when(platforms: [.linux]))]),
        .target(
            name: "RequestKitTesting",
            dependencies: ["RequestKit", .target(name: "COpenSSL", condition: .when(platforms: [.linux]))],
            exclude: ["Server/TLSFixtures"]),
        .executableTarget(name: "Examples", dependencies: ["RequestKit", "RequestKitTesting"], path: "Examples"),
        .executableTarget(name: "Benchmarks", dependencies: ["RequestKit", "RequestKitTesting"], path: "Benchmarks"),
        // A loopback reverse proxy through a ResponseCache, for the public HTTP cache test suite
        // (Scripts/run-cache-tests.sh); never a product.
        .executableTarget(name: "CacheProxy", dependencies: ["RequestKit", "RequestKitTesting"]),
        // Replay/Cassettes holds HAR files that tests replay, read from beside the test file (#filePath).
        .testTarget(
            name: "RequestKitTests", dependencies: ["RequestKit", "RequestKitTesting"], exclude: ["Replay/Cassettes"]),
        .testTarget(name: "InteropTests", dependencies: ["RequestKit"]),
        .testTarget(name: "SnippetTests", dependencies: ["RequestKit", "RequestKitTesting"], exclude: ["Cassettes"]),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.0
// A peer benchmark, outside RequestKit's package: the root Package.swift never refers to this directory, and
// RequestKit itself keeps no package dependencies. Build it with `bash Scripts/build-peer.sh WebSocketKit`, which
// resolves Vapor's websocket-kit and its dependencies from local git clones (no network).
import PackageDescription

let package = Package(
    name: "WebSocketKitPeerBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/vapor/websocket-kit.git", from: "2.16.0"),
        // Already in websocket-kit's graph; named here for the event loop group and the counters.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.78.0"),
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.1.0"),
    ],
    targets: [
        .executableTarget(
            name: "WebSocketKitBenchmarks",
            dependencies: [
                .product(name: "WebSocketKit", package: "websocket-kit"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Atomics", package: "swift-atomics"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.0
// A peer benchmark, outside RequestKit's package: the root Package.swift never refers to this directory, and
// RequestKit itself keeps no package dependencies. Build it with Scripts/build-peer-ahc.sh, which resolves
// AsyncHTTPClient and its dependencies from local git clones (no network).
import PackageDescription

let package = Package(
    name: "AHCPeerBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.33.0"),
        // Already in AsyncHTTPClient's graph; named here for the types its configuration takes.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
    ],
    targets: [
        .executableTarget(
            name: "AHCBenchmarks",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)

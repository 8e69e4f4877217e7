// swift-tools-version: 6.1
// A peer benchmark, outside RequestKit's package: the same client swift-openapi-generator generated for the OpenAPI
// trait's tests, sent through RequestKitTransport or through swift-openapi-async-http-client. RequestKit's
// Package.swift never refers to this directory, so its default build keeps no package dependencies.
// Scripts/compare-openapi-transports.sh builds it (from local git copies, no network) in a scratch directory, with
// the generated client copied in beside main.swift, and runs it.
import PackageDescription

let package = Package(
    name: "OpenAPIPeerBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "RequestKit", path: "REQUESTKIT_ROOT", traits: ["OpenAPI"]),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.11.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.33.0"),
    ],
    targets: [
        .executableTarget(
            name: "OpenAPIBenchmarks",
            dependencies: [
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitOpenAPI", package: "RequestKit"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            // The generated files are wrapped in `#if OpenAPI`, the trait's condition in RequestKit's tests.
            swiftSettings: [.define("OpenAPI")]
        )
    ],
    swiftLanguageModes: [.v6]
)

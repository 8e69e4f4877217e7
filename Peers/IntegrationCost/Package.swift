// swift-tools-version: 6.1
// A measurement, outside RequestKit's package: what the Logging, Metrics and Tracing integrations cost per request
// with no-op backends (swift-log's SwiftLogNoOpLogHandler, swift-metrics' NOOPMetricsHandler, swift-distributed-
// tracing's NoOpTracer). RequestKit's Package.swift never refers to this directory. Scripts/measure-integration-cost.sh
// builds it in release from local git copies (Scripts/use-local-packages.sh) and counts its instructions with
// callgrind.
import PackageDescription

let package = Package(
    name: "IntegrationCost",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "RequestKit", path: "../..", traits: ["Logging", "Metrics", "Tracing"]),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
    ],
    targets: [
        .executableTarget(
            name: "IntegrationCost",
            dependencies: [
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitLogging", package: "RequestKit"),
                .product(name: "RequestKitMetrics", package: "RequestKit"),
                .product(name: "RequestKitTracing", package: "RequestKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.1
// A measurement, outside RequestKit's package: what the Logging, Metrics and Tracing integrations cost per request
// with no-op backends (swift-log's SwiftLogNoOpLogHandler, swift-metrics' NOOPMetricsHandler, swift-distributed-
// tracing's NoOpTracer). RequestKit's Package.swift never refers to this directory. Scripts/measure-integration-cost.sh
// builds it in release from local git copies (Scripts/use-local-packages.sh) and counts its instructions with
// callgrind: once as it is, and once with `--disable-default-traits`, which builds RequestKit with its traits off
// (its default build) and this program without the integrations.
import PackageDescription

let integrations: TargetDependencyCondition? = .when(traits: ["Integrations"])

let package = Package(
    name: "IntegrationCost",
    platforms: [.macOS(.v13)],
    traits: [
        .trait(
            name: "Integrations", description: "RequestKit's Logging, Metrics and Tracing traits and their packages"),
        .default(enabledTraits: ["Integrations"]),
    ],
    dependencies: [
        .package(
            name: "RequestKit", path: "../..",
            traits: [
                .trait(name: "Logging", condition: .when(traits: ["Integrations"])),
                .trait(name: "Metrics", condition: .when(traits: ["Integrations"])),
                .trait(name: "Tracing", condition: .when(traits: ["Integrations"])),
            ]),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
    ],
    targets: [
        .executableTarget(
            name: "IntegrationCost",
            dependencies: [
                .product(name: "RequestKit", package: "RequestKit"),
                .product(name: "RequestKitLogging", package: "RequestKit", condition: integrations),
                .product(name: "RequestKitMetrics", package: "RequestKit", condition: integrations),
                .product(name: "RequestKitTracing", package: "RequestKit", condition: integrations),
                .product(name: "Logging", package: "swift-log", condition: integrations),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: integrations),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: integrations),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)

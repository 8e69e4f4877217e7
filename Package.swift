// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "RequestKit",
    platforms: [
        .macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1),
    ],
    products: [
        .library(name: "RequestKit", targets: ["RequestKit"]),
        .library(name: "RequestKitTesting", targets: ["RequestKitTesting"]),
        // One small library per integration; each is an empty module unless its trait is enabled.
        .library(name: "RequestKitLogging", targets: ["RequestKitLogging"]),
        .library(name: "RequestKitMetrics", targets: ["RequestKitMetrics"]),
        .library(name: "RequestKitTracing", targets: ["RequestKitTracing"]),
        .library(name: "RequestKitHTTPTypes", targets: ["RequestKitHTTPTypes"]),
        .library(name: "RequestKitOpenAPI", targets: ["RequestKitOpenAPI"]),
        .library(name: "RequestKitServiceLifecycle", targets: ["RequestKitServiceLifecycle"]),
    ],
    // Integrations with the Swift server ecosystem, all off by default: a dependency used only by a trait that is off
    // is neither fetched nor built, so the default build keeps no package dependencies and resolves offline.
    traits: [
        .trait(name: "Logging", description: "RequestKitLogging: a monitor that logs through swift-log"),
        .trait(
            name: "Metrics", description: "RequestKitMetrics: OpenTelemetry HTTP client instruments on swift-metrics"),
        .trait(
            name: "Tracing",
            description: "RequestKitTracing: a span per request through swift-distributed-tracing, context propagated"),
        .trait(name: "HTTPTypes", description: "RequestKitHTTPTypes: conversions to and from swift-http-types"),
        .trait(
            name: "OpenAPI", description: "RequestKitOpenAPI: a swift-openapi-runtime ClientTransport over a Client",
            enabledTraits: ["HTTPTypes"]),
        .trait(
            name: "ServiceLifecycle",
            description:
                "RequestKitServiceLifecycle: a Client as a swift-service-lifecycle Service, shut down gracefully"),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.10.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-service-context.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.11.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
    ],
    targets: [
        // The system zlib, for decompressing gzip and deflate response bodies in NativeTransport and for the CRC-32 of
        // the disk cache's files: part of every Linux distribution and Apple SDK, so RequestKit still has no package
        // dependencies.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        // The system brotli and zstd, for decoding (and, on request, encoding) br and zstd bodies on Linux: Debian's
        // libbrotli-dev and libzstd-dev. Apple platforms never link them (their transports offer gzip and deflate,
        // and URLSession decodes br itself), so the dependency and every use of them are Linux-only.
        .systemLibrary(name: "CBrotli", path: "Sources/CBrotli", providers: [.apt(["libbrotli-dev"])]),
        .systemLibrary(name: "CZstd", path: "Sources/CZstd", providers: [.apt(["libzstd-dev"])]),
        // The system nghttp2, for HTTP/2's framing, HPACK and stream states on Linux: Debian's libnghttp2-dev. The
        // connections, the pool and every policy around them are RequestKit's (RequestKitHTTP2).
        .systemLibrary(name: "CNghttp2", path: "Sources/CNghttp2", providers: [.apt(["libnghttp2-dev"])]),
        // The system c-ares, for resolving host names without blocking on Linux: Debian's libc-ares-dev. Its sockets
        // and timers run on the native transport's event loop; the queries asked, the cache and the connection race
        // are RequestKit's (RequestKitConnect).
        .systemLibrary(name: "CAres", path: "Sources/CAres", providers: [.apt(["libc-ares-dev"])]),
        // epoll and eventfd for NativeTransport's event loop on Linux (the Glibc module does not export them); an
        // empty module on Apple platforms, which use kqueue from Darwin.
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        // Atomic operations on a word for the native transport's lock-free handoffs (a header of its own, no library):
        // Swift's `Atomic` needs macOS 15 and iOS 18, above the package's minimum.
        .systemLibrary(name: "CAtomics", path: "Sources/CAtomics"),
        // The system OpenSSL 3, for TLS on Linux and the cache's SHA-256 of credentials: Debian's libssl-dev. Apple
        // platforms never link it (the native transport hands https to URLSession there, and the cache uses
        // CryptoKit), so the dependency and every use of it are Linux-only.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", providers: [.apt(["libssl-dev"])]),
        // RequestKit's layers, from the bottom: each target uses only the targets it lists, so a reference against
        // the flow (a model type calling a verb, a transport calling the pipeline) does not compile. The RequestKit
        // module re-exports them all; they are not products, so users import RequestKit alone.
        .target(name: "RequestKitJSON"),
        .target(name: "RequestKitModel"),
        .target(
            name: "RequestKitDSL",
            dependencies: [
                "RequestKitJSON", "RequestKitModel", "CZlib",
                .target(name: "CBrotli", condition: .when(platforms: [.linux])),
                .target(name: "CZstd", condition: .when(platforms: [.linux])),
            ]),
        // The cache keys a request's responses by a SHA-256 digest of its credentials (OpenSSL on Linux, CryptoKit on
        // Apple platforms) and checks each file of its disk store with zlib's CRC-32.
        .target(
            name: "RequestKitFeatures",
            dependencies: [
                "RequestKitModel", "RequestKitDSL", "CZlib",
                .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
            ]),
        .target(name: "RequestKitURLSession", dependencies: ["RequestKitModel"]),
        .target(
            name: "RequestKitSockets",
            dependencies: ["RequestKitModel", .target(name: "COpenSSL", condition: .when(platforms: [.linux]))]),
        .target(
            name: "RequestKitConnect",
            dependencies: ["RequestKitModel", .target(name: "CAres", condition: .when(platforms: [.linux]))]),
        .target(
            name: "RequestKitHTTP2",
            dependencies: ["RequestKitModel", .target(name: "CNghttp2", condition: .when(platforms: [.linux]))]),
        // RFC 6455 and RFC 7692 without I/O: frames, the opening handshake, the connection's state machine and
        // permessage-deflate over the system zlib; SHA-1 for the handshake's accept value comes from OpenSSL on Linux
        // and CryptoKit on Apple platforms, never from code of RequestKit's own.
        .target(
            name: "RequestKitWebSocket",
            dependencies: [
                "RequestKitModel", "CZlib", .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
            ]),
        .target(
            name: "RequestKitNativeTransport",
            dependencies: [
                "RequestKitModel", "RequestKitSockets", "RequestKitConnect", "RequestKitURLSession", "RequestKitHTTP2",
                "RequestKitWebSocket", "CZlib", "CEpoll",
                "CAtomics", .target(name: "CBrotli", condition: .when(platforms: [.linux])),
                .target(name: "CZstd", condition: .when(platforms: [.linux])),
                .target(name: "CNghttp2", condition: .when(platforms: [.linux])),
                .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
                .target(name: "CAres", condition: .when(platforms: [.linux])),
            ]),
        .target(
            name: "RequestKitPipeline", dependencies: ["RequestKitModel", "RequestKitDSL", "RequestKitFeatures"]),
        // The verbs choose the default transport and open WebSockets (whose sockets are the native transport's).
        .target(
            name: "RequestKitSending",
            dependencies: [
                "RequestKitJSON", "RequestKitModel", "RequestKitDSL", "RequestKitFeatures", "RequestKitPipeline",
                "RequestKitWebSocket", "RequestKitNativeTransport",
            ]),
        .target(
            name: "RequestKitComposition",
            dependencies: [
                "RequestKitJSON", "RequestKitModel", "RequestKitDSL", "RequestKitFeatures", "RequestKitPipeline",
                "RequestKitSending",
            ]),
        .target(
            name: "RequestKitClient",
            dependencies: [
                "RequestKitJSON", "RequestKitModel", "RequestKitDSL", "RequestKitFeatures", "RequestKitSending",
            ]),
        .target(
            name: "RequestKit",
            dependencies: [
                "RequestKitJSON", "RequestKitModel", "RequestKitDSL", "RequestKitFeatures", "RequestKitURLSession",
                "RequestKitSockets", "RequestKitConnect", "RequestKitNativeTransport", "RequestKitPipeline",
                "RequestKitSending", "RequestKitComposition", "RequestKitClient", "RequestKitWebSocket",
            ]),
        .target(
            name: "RequestKitTesting",
            dependencies: [
                "RequestKit", .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
                .target(name: "CNghttp2", condition: .when(platforms: [.linux])),
            ],
            exclude: ["Server/TLSFixtures"]),
        // What the integrations say about a request in OpenTelemetry's terms (method, redacted URL, server, protocol,
        // error type), one way for all of them; no dependencies, never a product.
        .target(name: "RequestKitConventions", dependencies: ["RequestKit"]),
        // The integrations: each target uses its package only when its trait is enabled (its sources are wrapped in
        // `#if <Trait>`), so with the traits off it is an empty module and nothing is fetched.
        .target(
            name: "RequestKitLogging",
            dependencies: [
                "RequestKit", "RequestKitConventions",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"])),
            ]),
        .target(
            name: "RequestKitMetrics",
            dependencies: [
                "RequestKit", "RequestKitConventions", "RequestKitFeatures", "RequestKitNativeTransport",
                .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
            ]),
        .target(
            name: "RequestKitTracing",
            dependencies: [
                "RequestKit", "RequestKitConventions", "RequestKitFeatures",
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
                .product(
                    name: "ServiceContextModule", package: "swift-service-context",
                    condition: .when(traits: ["Tracing"])),
            ]),
        .target(
            name: "RequestKitHTTPTypes",
            dependencies: [
                "RequestKit",
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["HTTPTypes"])),
            ]),
        // The OpenAPI transport converts with RequestKitHTTPTypes (the OpenAPI trait enables HTTPTypes).
        .target(
            name: "RequestKitOpenAPI",
            dependencies: [
                "RequestKit", "RequestKitHTTPTypes",
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
                .product(
                    name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
            ]),
        .target(
            name: "RequestKitServiceLifecycle",
            dependencies: [
                "RequestKit",
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])),
            ]),
        .executableTarget(name: "Examples", dependencies: ["RequestKit", "RequestKitTesting"], path: "Examples"),
        .executableTarget(
            name: "Benchmarks", dependencies: ["RequestKit", "RequestKitNativeTransport", "RequestKitTesting"],
            path: "Benchmarks", exclude: ["HISTORY.md"]),
        // A loopback reverse proxy through a ResponseCache, for the public HTTP cache test suite
        // (Scripts/run-cache-tests.sh); never a product.
        .executableTarget(name: "CacheProxy", dependencies: ["RequestKit", "RequestKitTesting"]),
        // The client the Autobahn|Testsuite fuzzing server judges (Scripts/run-autobahn.sh, in .ci/run); never a
        // product.
        .executableTarget(name: "AutobahnClient", dependencies: ["RequestKit"]),
        // Helpers that several test targets share (child processes, raw HTTP connections, the transports the wire
        // suites run on, counters, temporary files, HTTP/2 peers); never a product. Its declarations are `package`.
        .target(
            name: "RequestKitTestSupport",
            dependencies: [
                "RequestKitTesting", "RequestKitModel", "RequestKitFeatures", "RequestKitURLSession",
                "RequestKitSockets", "RequestKitHTTP2", "RequestKitWebSocket", "RequestKitNativeTransport",
                .target(name: "CNghttp2", condition: .when(platforms: [.linux])),
            ],
            path: "Tests/RequestKitTestSupport"),
        // A test target per library target, each importing the module it specifies (`@testable` where it reaches
        // internals) and the public or `package` API of the layers it needs. The HTTP/2 session's tests that run it
        // over a TLS stream or against nginx stay in RequestKitNativeTransportTests, beside the TLS and nginx helpers.
        // RequestKitTests is the umbrella's: behaviour through `import RequestKit` on the wire, over every transport.
        .testTarget(
            name: "RequestKitJSONTests",
            dependencies: [
                "RequestKitTestSupport", "RequestKitJSON",
            ]),
        .testTarget(
            name: "RequestKitModelTests",
            dependencies: [
                "RequestKitTestSupport", "RequestKitModel",
            ]),
        .testTarget(
            name: "RequestKitDSLTests",
            dependencies: [
                "RequestKitTesting", "RequestKitTestSupport", "RequestKitModel", "RequestKitDSL",
                "RequestKitNativeTransport",
            ]),
        .testTarget(
            name: "RequestKitFeaturesTests",
            dependencies: [
                "RequestKitTesting", "RequestKitTestSupport", "RequestKitModel", "RequestKitDSL", "RequestKitFeatures",
                "RequestKitNativeTransport", "RequestKitClient",
            ]),
        .testTarget(
            name: "RequestKitURLSessionTests",
            dependencies: [
                "RequestKitTesting", "RequestKitTestSupport", "RequestKitModel", "RequestKitURLSession",
                "RequestKitNativeTransport",
            ]),
        .testTarget(
            name: "RequestKitSocketsTests",
            dependencies: [
                "RequestKitTesting", "RequestKitModel", "RequestKitSockets",
                .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
            ]),
        .testTarget(
            name: "RequestKitConnectTests",
            dependencies: [
                "RequestKitModel", "RequestKitConnect",
            ]),
        .testTarget(
            name: "RequestKitHTTP2Tests",
            dependencies: [
                "RequestKitTestSupport", "RequestKitModel", "RequestKitHTTP2",
                .target(name: "CNghttp2", condition: .when(platforms: [.linux])),
            ]),
        .testTarget(
            name: "RequestKitWebSocketTests",
            dependencies: [
                "RequestKitTestSupport", "RequestKitModel", "RequestKitWebSocket",
            ]),
        // Proxy/Data holds the NO_PROXY table curl answered, read from beside the test file (#filePath).
        .testTarget(
            name: "RequestKitNativeTransportTests",
            dependencies: [
                "RequestKitTesting", "RequestKitTestSupport", "RequestKitJSON", "RequestKitModel", "RequestKitDSL",
                "RequestKitFeatures", "RequestKitURLSession", "RequestKitSockets", "RequestKitConnect",
                "RequestKitHTTP2", "RequestKitWebSocket", "RequestKitNativeTransport", "RequestKitClient",
                .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
                .target(name: "CAres", condition: .when(platforms: [.linux])),
                .target(name: "CNghttp2", condition: .when(platforms: [.linux])),
                .target(name: "CBrotli", condition: .when(platforms: [.linux])),
                .target(name: "CZstd", condition: .when(platforms: [.linux])),
            ],
            exclude: ["Proxy/Data"]),
        .testTarget(
            name: "RequestKitPipelineTests",
            dependencies: [
                "RequestKitTesting", "RequestKitModel", "RequestKitDSL", "RequestKitFeatures", "RequestKitPipeline",
            ]),
        .testTarget(
            name: "RequestKitSendingTests",
            dependencies: [
                "RequestKitTesting", "RequestKitTestSupport", "RequestKitModel", "RequestKitDSL", "RequestKitFeatures",
                "RequestKitWebSocket", "RequestKitSending", "RequestKitComposition",
            ]),
        .testTarget(
            name: "RequestKitCompositionTests",
            dependencies: [
                "RequestKitTesting", "RequestKitTestSupport", "RequestKitModel", "RequestKitDSL", "RequestKitFeatures",
                "RequestKitURLSession", "RequestKitNativeTransport", "RequestKitSending", "RequestKitComposition",
            ]),
        .testTarget(
            name: "RequestKitClientTests",
            dependencies: [
                "RequestKitTesting", "RequestKitTestSupport", "RequestKitJSON", "RequestKitModel", "RequestKitDSL",
                "RequestKitFeatures", "RequestKitSending", "RequestKitComposition", "RequestKitClient",
            ]),
        // Replay/Cassettes holds HAR files that tests replay, read from beside the test file (#filePath).
        .testTarget(
            name: "RequestKitTestingTests",
            dependencies: [
                "RequestKitTesting", "RequestKitTestSupport", "RequestKitJSON", "RequestKitModel", "RequestKitDSL",
                "RequestKitFeatures", "RequestKitURLSession", "RequestKitSockets", "RequestKitWebSocket",
                "RequestKitNativeTransport", "RequestKitClient",
            ],
            exclude: ["Replay/Cassettes"]),
        .testTarget(
            name: "RequestKitTests",
            dependencies: [
                "RequestKit", "RequestKitTesting", "RequestKitTestSupport", "RequestKitModel", "RequestKitWebSocket",
            ]),
        .testTarget(name: "InteropTests", dependencies: ["RequestKit"]),
        .testTarget(name: "RequestKitConventionsTests", dependencies: ["RequestKitConventions"]),
        // The integrations' tests, against each library's own test doubles; each file is empty unless its trait is
        // enabled (`bash Scripts/test-traits.sh`).
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "RequestKit", "RequestKitTesting", "RequestKitLogging", "RequestKitMetrics", "RequestKitTracing",
                "RequestKitHTTPTypes", "RequestKitOpenAPI", "RequestKitServiceLifecycle",
                .product(
                    name: "Logging", package: "swift-log", condition: .when(traits: ["Logging", "ServiceLifecycle"])),
                .product(name: "InMemoryLogging", package: "swift-log", condition: .when(traits: ["Logging"])),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
                .product(
                    name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])
                ),
                .product(
                    name: "ServiceContextModule", package: "swift-service-context",
                    condition: .when(traits: ["Tracing"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["HTTPTypes"])),
                .product(
                    name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])),
                .product(
                    name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])),
            ],
            // openapi.yaml and the generator's configuration, from which Scripts/generate-openapi-client.sh makes
            // OpenAPI/Generated.
            exclude: ["OpenAPI/openapi.yaml", "OpenAPI/openapi-generator-config.yaml"]),
        // The documents' code blocks; a block marked `<!-- snippet: trait <Trait> -->` compiles only with its trait.
        .testTarget(
            name: "SnippetTests",
            dependencies: [
                "RequestKit", "RequestKitTesting", "RequestKitLogging", "RequestKitMetrics", "RequestKitTracing",
                "RequestKitHTTPTypes", "RequestKitOpenAPI", "RequestKitServiceLifecycle",
                .product(
                    name: "Logging", package: "swift-log", condition: .when(traits: ["Logging", "ServiceLifecycle"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["HTTPTypes"])),
                .product(
                    name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])),
            ],
            exclude: ["Cassettes"]),
    ],
    swiftLanguageModes: [.v6]
)

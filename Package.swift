// swift-tools-version: 6.1
// TweetCache: tweet search results → a fast, trustworthy local image cache.
import PackageDescription


let package = Package(
    name: "TweetCache",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "tweetcache", targets: ["tweetcache"]),
        .library(name: "Pipeline", targets: ["Pipeline"]),
        .library(name: "CacheCore", targets: ["CacheCore"]),
        .library(name: "Catalog", targets: ["Catalog"]),
        .library(name: "TweetModel", targets: ["TweetModel"]),
        .library(name: "MediaFetch", targets: ["MediaFetch"]),
        .library(name: "BlobStore", targets: ["BlobStore"]),
        .library(name: "Imaging", targets: ["Imaging"]),
        // ContentKind appears in MediaFetch's and Pipeline's public API, so users can name it.
        .library(name: "MediaTypes", targets: ["MediaTypes"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        // Without the swift-configuration support (a default trait): nothing here reads it.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0", traits: ["FullFoundation"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    ],
    targets: [
        // System libraries: a modulemap and pkg-config, nothing else.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CGIF", pkgConfig: "libgif", providers: [.apt(["libgif-dev"])]),
        // HEIF and AVIF in one library: HEVC through libde265, AV1 through dav1d (and libaom to write fixtures).
        .systemLibrary(name: "CHEIF", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        // Little CMS: embedded ICC profiles, CMYK and PNG colour chunks converted to sRGB.
        .systemLibrary(name: "CLCMS", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        // Zstandard: manifests are written in its seekable format (`.json.zst`).
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        // OpenSSL's libcrypto (which libcurl loads anyway): SHA-256 for blob names and S3, MD5 for ETags, SHA-1 for WebSockets.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),

        // The only C code: typed wrappers for variadic curl calls, setjmp-guarded codecs,
        // SQLite's process-wide settings (variadic sqlite3_config).
        // zlib comes with libpng; its crc32 checks the tiles of a pyramid pack.
        .target(
            name: "CTweetCache", dependencies: ["CCurl", "CPNG", "CJPEG", "CWebP", "CGIF", "CHEIF", "CLCMS"],
            // libwebpmux writes the ICC chunks and animations of WebP fixtures (CWebP's pkg-config names demux).
            // sqlite3: the process-wide settings made before SQLite initializes (tc_sqlite.c).
            linkerSettings: [.linkedLibrary("z"), .linkedLibrary("webpmux"), .linkedLibrary("sqlite3")]
        ),

        .target(name: "TweetModel"),
        // The cryptographic digests, over libcrypto: every SHA-256, MD5 and SHA-1 the package computes.
        .target(name: "Hashing", dependencies: ["CCrypto"]),
        // What bytes are, from their magic numbers: the one table the fetcher, imaging and the server share.
        .target(name: "MediaTypes"),
        .target(
            name: "MediaFetch",
            dependencies: ["CTweetCache", "CCurl", "MediaTypes", .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        .target(
            name: "BlobStore",
            dependencies: [
                "MediaTypes",
                .product(name: "GRDB", package: "GRDB.swift"),
                "Hashing",
            ]
        ),
        .target(name: "Imaging", dependencies: ["CTweetCache", "CJPEG", "CPNG", "MediaTypes"]),
        // The reader side: the manifest format, the SQLite catalog of every post the
        // manifests hold (FTS5), and the IIIF Presentation documents built from it.
        .target(
            name: "Catalog",
            dependencies: ["BlobStore", "TweetModel", "MediaTypes", "CTweetCache", "CZstd", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // The cache as a type: one opening (`Cache`), what it holds (`CacheKey`, in
        // BlobStore), how its objects are checked and derived, and its layout migration.
        // The readers (TileServer, Inspect) stand on this, never on the write side.
        .target(
            name: "CacheCore",
            dependencies: [
                "BlobStore", "Catalog", "Imaging", "MediaTypes", "MediaFetch", "ObjectStore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "Pipeline",
            dependencies: [
                "CacheCore", "Catalog", "TweetModel", "MediaFetch", "BlobStore", "Imaging", "ObjectStore", "MediaTypes", "CTweetCache",
                // A search's state (what the catalog holds of it) and its pages as the run's inputs.
                "LiveSearch",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "Demo",
            dependencies: [
                "TweetModel", "Imaging",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // `tweetcache serve`: Deep Zoom, IIIF Image API 3.0, thumbnails and a viewer page over HTTP.
        .target(
            name: "TileServer",
            dependencies: [
                "Catalog", "CacheCore", "BlobStore", "Imaging", "MediaFetch", "MediaTypes", "CTweetCache", "LiveSearch", "ObjectStore", "TweetModel",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                "Hashing",
            ],
            // The viewer's pages, styles and scripts, as files, compiled into the binary.
            resources: [
                .embedInCode("Viewer/index.html"), .embedInCode("Viewer/zoom.html"), .embedInCode("Viewer/viewer.css"),
                .embedInCode("Viewer/app.js"), .embedInCode("Viewer/zoom.js"), .embedInCode("Viewer/signin.html"),
            ]
        ),
        // The cache as a terminal sees it: tweets, info, ls, show, stats, verify, gc, export.
        .target(
            name: "Inspect",
            dependencies: ["Catalog", "CacheCore", "BlobStore", "Imaging", "TweetModel", "LiveSearch", "ObjectStore", .product(name: "Logging", package: "swift-log")]
        ),
        // `tweetcache search`: the X API search client, paging, rate limits, saved pages, history.
        .target(
            name: "LiveSearch",
            dependencies: [
                "MediaFetch", "TweetModel",
                // Jetstream's WebSocket: libcurl's connection (TLS for wss://), NIO's frames.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                "Hashing",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Where shared files live (CacheStorage): S3-compatible buckets (requests signed by libcurl, SigV4) and folders.
        .target(
            name: "ObjectStore",
            dependencies: ["MediaFetch", "BlobStore", "CTweetCache", "Hashing",
                .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        .executableTarget(
            name: "tweetcache",
            dependencies: [
                "Catalog", "CacheCore", "Pipeline", "Demo", "LiveSearch", "TileServer", "Inspect", "ObjectStore", "BlobStore",
                "Imaging", "MediaTypes", "MediaFetch", "TweetModel", "CTweetCache",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Test-only support: a loopback HTTP/1.1 server with fault injection.
        .target(name: "TestSupport", dependencies: ["MediaFetch", "BlobStore", "Catalog"], path: "Tests/Support"),
        .testTarget(name: "TweetModelTests", dependencies: ["TweetModel"]),
        .testTarget(name: "HashingTests", dependencies: ["Hashing"]),
        .testTarget(
            name: "CatalogTests",
            dependencies: ["Catalog", "BlobStore", "MediaTypes", "TweetModel", "TestSupport", "CTweetCache", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift")]
        ),
        .testTarget(name: "ObjectStoreTests", dependencies: ["ObjectStore", "MediaFetch", "BlobStore", "TestSupport",
            .product(name: "HTTPTypes", package: "swift-http-types")]),
        // Test-only support: an HTTPS origin speaking HTTP/2, with a CA of its own: nginx
        // (TLS, HTTP/2) in front of a plain origin that counts, so no second TLS library.
        .target(
            name: "TLSTestSupport",
            dependencies: [
                "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/TLSSupport"
        ),
        .testTarget(name: "MediaFetchTests", dependencies: ["MediaFetch", "MediaTypes", "TestSupport", "TLSTestSupport",
            .product(name: "HTTPTypes", package: "swift-http-types")]),
        .testTarget(
            name: "BlobStoreTests",
            dependencies: [
                "BlobStore", "tc-stress", "TestSupport",
                "Hashing",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // A child process for BlobStoreTests: writes slowly so tests can kill it mid-blob.
        .executableTarget(name: "tc-stress", dependencies: ["BlobStore", "TestSupport"], path: "Tests/StressTool"),
        // CTweetCache: the tests' PNGRawEncoder writes every PNG variant through the shim's raw PNG writer.
        // Fixture encoders (GIF, AVIF/HEIC with orientation, nclx and HDR, ICC profiles) for
        // tests, test tools and fuzz seeds: kept out of the Imaging library users link.
        .target(name: "ImagingFixtures", dependencies: ["Imaging", "CTweetCache"], path: "Tests/ImagingFixtures"),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "ImagingFixtures", "CTweetCache", "MediaTypes"]),
        // Our thumbnails of a folder as PNG, for scripts/compare-thumbs.sh to set against vipsthumbnail's.
        .executableTarget(name: "tc-thumb-export", dependencies: ["Imaging", "TestSupport"], path: "Tests/ThumbExportTool"),
        // The colour test set's files that vips cannot write (bench/colour-vs-vips.sh).
        .executableTarget(name: "tc-colour-set", dependencies: ["Imaging", "ImagingFixtures"], path: "Tests/ColourSetTool"),
        // Loopback stand-ins for the networks' streams: a Jetstream over WebSocket.
        .target(
            name: "StreamTestSupport",
            dependencies: [
                "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/StreamSupport"
        ),
        .testTarget(name: "LiveSearchTests", dependencies: ["LiveSearch", "TweetModel", "TestSupport", "StreamTestSupport", "MediaFetch",
            "TLSTestSupport",
            .product(name: "HTTPTypes", package: "swift-http-types")]),
        // The fake X API served by hand (`swift run tc-fake-api`), for trying `search` offline.
        .executableTarget(name: "tc-fake-api", dependencies: ["TestSupport"], path: "Tests/FakeAPITool"),
        // A Jetstream posting at a steady rate, and its image origin: bench/watch-stream.sh.
        .executableTarget(name: "tc-fake-stream", dependencies: ["TestSupport", "StreamTestSupport"], path: "Tests/FakeStreamTool"),
        .testTarget(
            name: "PipelineTests",
            dependencies: [
                "Catalog", "Pipeline", "CacheCore", "Demo", "TestSupport", "MediaTypes", "BlobStore", "Imaging", "ImagingFixtures", "MediaFetch",
                "TweetModel", "ObjectStore", "LiveSearch",
                .product(name: "Logging", package: "swift-log"), "Hashing",
            ]
        ),
        .testTarget(name: "DemoTests", dependencies: ["Demo", "Imaging", "TweetModel"]),
        .testTarget(
            name: "TileServerTests",
            dependencies: [
                "Catalog", "TileServer", "Pipeline", "CacheCore", "Imaging", "MediaFetch", "BlobStore", "TestSupport", "LiveSearch", "Inspect",
                "ObjectStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "InspectTests",
            dependencies: ["Catalog", "Inspect", "Pipeline", "CacheCore", "Demo", "TestSupport", "BlobStore", "Imaging", "MediaFetch"]
        ),
        // What each fuzz target checks (Fuzz/Checks), shared by scripts/fuzz.sh's libFuzzer
        // binaries and FuzzRegressionTests, which replays Fuzz/Regressions and the seeds.
        .target(
            name: "FuzzChecks",
            dependencies: [
                "TweetModel", "Imaging", "ImagingFixtures", "TileServer", "BlobStore", "Catalog",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            path: "Fuzz/Checks"
        ),
        .testTarget(name: "FuzzRegressionTests", dependencies: ["FuzzChecks"]),
        // Runs the built `tweetcache` binary as a process. It does not name `tweetcache`: a
        // test target that depends on an executable waits for it (and its ArgumentParser)
        // before compiling, at the end of the build, and links its objects into the test
        // bundle. `swift build --build-tests` and `swift test` build every product anyway.
        // Two targets, so that the build's last test module does not compile alone on one core
        // (CLITests was 46 s of one core at the end of a clean build): the commands that make
        // and follow an archive (fetch, search, watch, forget, thumb, every documented option),
        .testTarget(
            name: "CLITests",
            dependencies: ["TestSupport", "TLSTestSupport", "BlobStore", "Catalog", "Imaging", "StreamTestSupport"]
        ),
        // and those that read and share one (info, ls, dupes, manifest, the bucket and folder stores).
        .testTarget(
            name: "CLIArchiveTests",
            dependencies: ["TestSupport", "ObjectStore", "BlobStore", "MediaFetch", "TileServer", "Imaging", "Pipeline", "Catalog"]
        ),
    ]
)

// The libFuzzer binary (`scripts/fuzz.sh`): `fuzz TARGET`, entry points over FuzzChecks
// that start libFuzzer's driver. It needs `-sanitize=fuzzer` to link, so it exists only
// when the script asks for it.
if Context.environment["TWEETCACHE_FUZZ"] != nil {
    package.targets.append(.target(name: "CFuzzDriver", path: "Fuzz/Driver"))
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["FuzzChecks", "CFuzzDriver"], path: "Fuzz/Support"))
    package.targets.append(.executableTarget(name: "fuzz", dependencies: ["FuzzChecks", "FuzzSupport"], path: "Fuzz/Main"))
}

// Test targets are compiled unoptimised inside the optimised test build: their code
// starts servers, runs processes and compares results, while every pixel loop, codec
// and query they exercise lives in the (optimised) modules under test. Measured on
// this 2-core machine, all test targets rebuilt: 170-203 s optimised against 125-132 s,
// with the suite's own time unchanged (158 s against 150-174 s). Test targets belong
// to no product, so the unsafe flag never reaches a package that depends on this one.
for target in package.targets where target.type == .test {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Onone"])]
}

// `scripts/test.sh` builds the tests in debug, where the dependencies (SwiftNIO, GRDB)
// compile unoptimised, in about half the time. Of this
// package's own targets, only those whose loops the suite spends its time in are
// optimised: the imaging code and its fixtures (pixel loops 20-50x slower unoptimised),
// the demo's painters (the sample every `demo` run renders) and the C shim. The rest
// (the catalog, parsers, server, pipeline, CLI) compile unoptimised: measured on this
// 2-core machine, a clean test build took 999 s of user CPU with every own target
// optimised and 769 s with only the imaging, catalog and parser targets optimised,
// while the suite took 164-170 s either way (`perf`: under 1% of its samples in their code). Only
// the script sets the variable, so the unsafe flags never reach a package that depends
// on these libraries.
if Context.environment["TWEETCACHE_TEST_BUILD"] != nil {
    let optimised: Set<String> = ["Imaging", "ImagingFixtures", "Demo", "CTweetCache"]
    for target in package.targets where optimised.contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-O"])]
        target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(["-O2"])]
    }
}

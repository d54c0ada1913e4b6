import ArgumentParser
import Demo
import Foundation
import Pipeline
import TileServer

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the whole job on a built-in sample, with no internet and no token.",
        discussion: """
            Writes sample search results (API v1.1 and v2) into <cache>/demo/, starts a \
            loopback origin serving their images (rendered here, up to 4096x3072), fetches \
            everything through --mirror, writes the manifest and prints the summary.
            """)

    @OptionGroup var options: FetchOptions

    @Flag(name: .long, help: "After the fetch, keep the sample origin running and serve the cache with the viewer (Ctrl-C to stop).")
    var keepServing = false

    @Option(name: .long, help: "Port of the tile server and viewer with --keep-serving.")
    var port: Int = 8080

    @Option(name: .long, help: "Port for the sample origin (0: any free port).")
    var originPort: Int = 0

    func run() async throws {
        let sample = SampleResults.make()
        let cache = options.cacheURL
        let dir = cache.appendingPathComponent("demo", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let v1 = dir.appendingPathComponent("search-v1.1-ucd.json")
        let v2 = dir.appendingPathComponent("search-v2-ucd.json")
        try sample.v1Search.write(to: v1, options: .atomic)
        try sample.v2Search.write(to: v2, options: .atomic)

        let quiet = options.quiet || options.json
        let renderStart = ContinuousClock.now
        // Rendering the sample's 153 megapixels takes seconds of every core; the files are
        // kept for the next demo, in this cache or in a folder that demos into new caches
        // share (TWEETCACHE_DEMO_ASSETS: the test suite runs a few dozen demos).
        let environment = ProcessInfo.processInfo.environment
        let shared = environment["TWEETCACHE_DEMO_ASSETS"].flatMap {
            $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true)
        }
        // Photos at 1/N of their size (TWEETCACHE_DEMO_SHRINK): the suite's bucket tests
        // need a filled cache, not 153 megapixels to derive in each of their demos.
        let shrink = environment["TWEETCACHE_DEMO_SHRINK"].flatMap { Int($0) }.map { min(max($0, 1), 16) } ?? 1
        let bodies = try DemoAssets.render(sample.assets, directory: shared ?? dir, shrink: shrink)
        let avatars = sample.assets.filter { $0.kind == .avatar }.map(\.key)
        // One user's 400x400 avatar is "missing" on the origin, as happens on the real CDN.
        let origin = try await DemoOrigin.start(bodies: bodies, missingLargeAvatars: Set(avatars.prefix(1)), port: originPort)
        if !quiet {
            let mp = sample.assets.filter { $0.kind != .video }.map { $0.shrunk(by: shrink) }
                .reduce(0) { $0 + $1.width * $1.height }
            let secs = String(format: "%.2f", (ContinuousClock.now - renderStart).secondsDouble)
            StandardStreams.error("""
                demo: \(bodies.count) sample files (\(mp / 1_000_000) MP) ready in \(secs) s; origin \(origin.baseURL)
                demo: results in \(v1.path) and \(v2.path)\n
                """)
        }
        let inputs = [ResultsInput(name: v1.path, data: sample.v1Search), ResultsInput(name: v2.path, data: sample.v2Search)]
        let report = try await RunCommand.run(
            inputs: inputs, options: try options.pipelineOptions(extraMirrors: origin.mirrorSpecs(videos: options.videos)),
            flags: options)
        if keepServing {
            StandardStreams.error("demo: origin still serving at \(origin.baseURL)\n")
            var configuration = TileServerConfiguration(cacheRoot: cache.standardizedFileURL)
            configuration.port = port
            try await ServeCommand.serve(configuration)
            await origin.stop()
        } else {
            await origin.stop()
        }
        if report.failed(strict: options.strict) { throw ExitCode(1) }
    }
}

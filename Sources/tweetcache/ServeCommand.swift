import ArgumentParser
import Foundation
import Logging
import TileServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the cache over HTTP: Deep Zoom, IIIF Image API 3.0, thumbnails and a viewer page.",
        discussion: """
            Endpoints: / (viewer), /view/<sha256> (zoom view), /dzi/<sha256>.dzi and its _files tiles, \
            /iiif/3/<sha256>/info.json and image requests, /thumb/<sha256>/<size>, /blob/<sha256>, \
            /manifests/, /api/tweets, /healthz, /metrics. Tiles missing on disk are made on first \
            request and kept. Ctrl-C stops after open requests finish.
            """)

    @Option(name: .long, help: "Cache directory (default: $TWEETCACHE_CACHE or ./Cache).")
    var cache: String?

    @Option(name: .long, help: "Address to listen on (loopback by default).")
    var host = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on (0: any free port).")
    var port = 8080

    @Option(name: .long, help: ArgumentHelp("Base URL clients reach the server at, for IIIF ids (e.g. behind a proxy).", valueName: "URL"))
    var publicURL: String?

    @Option(name: .long, help: "Tile size of pyramids made on request (an existing .dzi keeps its own).")
    var tileSize = 256

    @Option(name: .long, help: "Largest IIIF output width and height in pixels.")
    var maxSize = 4096

    @Option(name: .long, help: "Seconds before an unanswered request gets 503.")
    var timeout = 30

    func validate() throws {
        guard (1...65535).contains(port) || port == 0 else { throw ValidationError("--port must be 0-65535") }
        guard (16...4096).contains(tileSize) else { throw ValidationError("--tile-size must be 16-4096") }
        guard maxSize >= 1 else { throw ValidationError("--max-size must be positive") }
        guard timeout >= 1 else { throw ValidationError("--timeout must be at least 1") }
    }

    func run() async throws {
        let path = cache ?? ProcessInfo.processInfo.environment["TWEETCACHE_CACHE"] ?? "Cache"
        let root = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var configuration = TileServerConfiguration(cacheRoot: root)
        configuration.host = host
        configuration.port = port
        configuration.publicBaseURL = publicURL
        configuration.tileSize = tileSize
        configuration.maxWidth = maxSize
        configuration.maxHeight = maxSize
        configuration.maxArea = maxSize * maxSize
        configuration.requestTimeout = .seconds(timeout)
        try await Self.serve(configuration)
    }

    /// Runs until SIGINT or SIGTERM, then stops gracefully.
    static func serve(_ configuration: TileServerConfiguration) async throws {
        let server = try await TileServer.start(configuration, logger: Logger(label: "tweetcache.serve"))
        FileHandle.standardError.write(Data("""
            serve: \(configuration.cacheRoot.path) at \(server.baseURL)/ (Ctrl-C to stop)

            """.utf8))
        // Print the bound port on stdout too, for scripts that ask for port 0.
        FileHandle.standardOutput.write(Data("listening \(server.baseURL)\n".utf8))
        await waitForTerminationSignal()
        FileHandle.standardError.write(Data("serve: stopping\n".utf8))
        await server.stop()
    }
}

/// Returns on SIGINT or SIGTERM, which are caught (not fatal) while it waits,
/// so the server can finish open requests before the process exits.
func waitForTerminationSignal() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    let sources = [SIGINT, SIGTERM].map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { continuation.yield() }
        source.resume()
        return source
    }
    for await _ in stream { break }
    for source in sources { source.cancel() }
}

import BlobStore
import CacheCore
import Catalog
import ArgumentParser
import Foundation
import ObjectStore
import LiveSearch
import Logging
import MediaFetch
import Pipeline
import TileServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the cache over HTTP: Deep Zoom, IIIF Image API 3.0, thumbnails and a viewer page.",
        discussion: """
            Endpoints: / (viewer), /view/<sha256> (zoom view), /dzi/<sha256>.dzi and its _files tiles, \
            /iiif/3/<sha256>/info.json and image requests, /thumb/<sha256>/<size>, /blob/<sha256>, \
            /iiif/presentation/collection.json (IIIF Presentation 3: a Manifest per search, hashtag, \
            user and run), /manifests/, /api/tweets, /api/history, /api/search, /healthz, /metrics. \
            Tiles missing on disk are made on first request and kept. Ctrl-C stops after open \
            requests finish.

            With an X bearer token ($TWEETCACHE_BEARER_TOKEN or --token-file, as `search` takes \
            it) the viewer runs live searches through the server: a hashtag or user clicked on \
            the page is searched for (the client, paging and rate-limit waits of `search`), its \
            pages saved and its media fetched into the cache. Without one the page filters the \
            cached tweets and says so.
            """)

    @OptionGroup var location: CacheOption

    @Option(name: .long, help: "Address to listen on (loopback by default).")
    var host = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on (0: any free port).")
    var port = 8080

    @Option(name: .long, help: ArgumentHelp("Base URL clients reach the server at, for IIIF ids (e.g. behind a proxy).", valueName: "URL"))
    var publicURL: String?

    @Option(name: .long, help: ArgumentHelp("Another host name clients reach the server by (repeatable); any Host not its own gets 421.", valueName: "NAME"))
    var allowHost: [String] = []

    @Option(name: .long, help: ArgumentHelp("The operator's token (first line, 16+ characters): on a server others reach, it opens live search, history, /metrics and /manifests/ (sign in at /signin, or Authorization: Bearer).", valueName: "PATH"))
    var operatorTokenFile: String?

    @Flag(name: .long, help: "Turn live search, history, /metrics and /manifests/ off, on any host.")
    var readOnly = false

    @Flag(name: .long, help: "A proxy in front sets X-Forwarded-For: rate limits go by its last address, and the server counts as public.")
    var trustProxy = false

    @Option(name: .long, help: ArgumentHelp("New images (tiles, thumbnails, IIIF renditions not yet made) each client may ask for per second after its burst; 0: no limit.", valueName: "N"))
    var renderRate: Double = 20

    @Option(name: .long, help: ArgumentHelp("New images each client may ask for at once.", valueName: "N"))
    var renderBurst = 200

    @Option(name: .long, help: ArgumentHelp("Thumbnail sizes kept on disk when made on request, besides the pipeline's 150 and 600 (comma-separated); other sizes stay in memory.", valueName: "LIST"))
    var thumbSizes: String?

    @Option(name: .long, help: "Tile size of pyramids made on request (an existing .dzi keeps its own).")
    var tileSize = 256

    @Option(name: .long, help: "Largest IIIF output width and height in pixels.")
    var maxSize = 4096

    @Option(name: .long, help: "Seconds before an unanswered request gets 503.")
    var timeout = 30

    /// The page's live searches (with an X token): how the API is asked.
    @OptionGroup var live: LiveSearchOptions

    @Option(name: .long, help: "Live searches: results wanted per search.")
    var searchCount: Int = 100


    @OptionGroup var mirrors: MirrorOptions

    @OptionGroup var storage: StoreOptions

    func validate() throws {
        guard (1...65535).contains(port) || port == 0 else { throw ValidationError("--port must be 0-65535") }
        guard (16...4096).contains(tileSize) else { throw ValidationError("--tile-size must be 16-4096") }
        guard maxSize >= 1 else { throw ValidationError("--max-size must be positive") }
        guard timeout >= 1 else { throw ValidationError("--timeout must be at least 1") }
        guard (1...100_000).contains(searchCount) else { throw ValidationError("--search-count must be between 1 and 100000") }
        guard renderRate >= 0, renderRate.isFinite else { throw ValidationError("--render-rate must be 0 or more") }
        guard renderBurst >= 1 else { throw ValidationError("--render-burst must be at least 1") }
        if let thumbSizes { _ = try FetchOptions.thumbSizes(thumbSizes) }
    }

    func run() async throws {
        let root = location.url.standardizedFileURL
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var configuration = TileServerConfiguration(cacheRoot: root)
        configuration.host = host
        configuration.port = port
        configuration.publicBaseURL = publicURL
        configuration.allowedHosts = allowHost
        configuration.tileSize = tileSize
        configuration.maxWidth = maxSize
        configuration.maxHeight = maxSize
        configuration.maxArea = maxSize * maxSize
        configuration.requestTimeout = .seconds(timeout)
        configuration.readOnly = readOnly
        configuration.trustsProxy = trustProxy
        configuration.renderRate = renderRate
        configuration.renderBurst = renderBurst
        if let thumbSizes { configuration.storedThumbnailSizes.formUnion(try FetchOptions.thumbSizes(thumbSizes)) }
        if let operatorTokenFile {
            do { configuration.operatorToken = try OperatorToken(file: URL(fileURLWithPath: operatorTokenFile)) } catch {
                throw FailureExit.message("serve: \(error.description)", code: 2)
            }
        }
        configuration.liveSearch = try liveSearch(root)
        // The cache, opened once and handed to the server. One that cannot be opened
        // for writing is left to the server, which says so and serves it read-only.
        configuration.cache = try? Cache.open(root)
        let layout = configuration.cache?.layout ?? configuration.readOnlyLayout
        var syncing: Task<Void, Never>? = nil
        if let shared = try await storage.open(health: StoreHealth()) {
            // Its files are read on demand; its runs become this server's catalog in the
            // background, so a slow store does not keep the server from listening.
            configuration.store = try storage.readThrough(shared, layout: layout)
            let deadline = max(30, timeout)
            syncing = Task.detached { await Self.syncForever(shared, layout: layout, deadline: deadline) }
        }
        try await Self.serve(configuration)
        syncing?.cancel()
    }

    /// How often the server looks for runs other machines uploaded, and how soon it
    /// tries again after a sync that failed.
    static let syncInterval: Duration = .seconds(300)
    static let syncRetry: Duration = .seconds(30)

    /// Copies the store's runs this cache lacks, at once and every ``syncInterval``,
    /// each sync bounded by `deadline` seconds; says what it found, and every run it
    /// could not read (tried again at the next sync), on standard error.
    static func syncForever(_ shared: any CacheStorage, layout: CacheLayout, deadline: Int) async {
        while !Task.isCancelled {
            var wait = syncInterval
            do {
                let report = try await S3Deadline.$current.withValue(.now + .seconds(deadline)) {
                    try await BucketSync(storage: shared, layout: layout).run()
                }
                StandardStreams.error("serve: \(shared.address): \(report.listed) runs, \(report.copied) new\n")
                for (key, why) in report.failed.sorted(by: { $0.key < $1.key }) {
                    StandardStreams.error("serve: sync: \(key): \(why); trying again at the next sync\n")
                    wait = syncRetry
                }
            } catch {
                StandardStreams.error("serve: could not list the store's runs (\(error)); trying again in \(syncRetry)\n")
                wait = syncRetry
            }
            try? await Task.sleep(for: wait)
        }
    }

    /// The page's live searches, when there is a token; a token file that cannot be
    /// read is an error (the user asked for it), no token at all is not.
    func liveSearch(_ root: URL) throws -> LiveSearchConfiguration? {
        let environment = ProcessInfo.processInfo.environment
        guard live.tokenFile != nil || !(environment[BearerToken.environmentVariable] ?? "").isEmpty else { return nil }
        let token: BearerToken
        do { token = try BearerToken.resolve(tokenFile: live.tokenFile, environment: environment) } catch {
            throw FailureExit.message("serve: \(error.description)", code: 2)
        }
        var search = SearchOptions(cacheRoot: root)
        search.api = live.api
        search.baseURL = live.apiBase
        search.count = searchCount
        search.maxWait = live.maxWait.duration
        var fetch = FetchConfiguration()
        fetch.mirrors = try mirrors.map()
        return LiveSearchConfiguration(
            token: token, search: search,
            collector: PipelineSearchCollector(options: PipelineOptions(cacheRoot: root, fetch: fetch)), cacheRoot: root)
    }

    /// Runs until SIGINT or SIGTERM, then stops gracefully.
    static func serve(_ configuration: TileServerConfiguration) async throws {
        let server = try await TileServer.start(configuration, logger: Logger(label: "tweetcache.serve"))
        StandardStreams.error("""
            serve: \(configuration.cacheRoot.path) at \(server.baseURL)/ (Ctrl-C to stop)

            """)
        switch OperatorAccess.decide(host: configuration.host, publicURL: configuration.publicBaseURL,
                                     trustsProxy: configuration.trustsProxy, token: configuration.operatorToken,
                                     readOnly: configuration.readOnly) {
        case .open: break
        case .token: StandardStreams.error("serve: the operator signs in at \(server.baseURL)/signin (or sends Authorization: Bearer)\n")
        case let .off(reason): StandardStreams.error("serve: live search, history, /metrics and /manifests/ are off: \(reason)\n")
        }
        // Print the bound port on stdout too, for scripts that ask for port 0.
        StandardStreams.output("listening \(server.baseURL)\n")
        await waitForTerminationSignal()
        StandardStreams.error("serve: stopping\n")
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

import Foundation
import BlobStore
import Catalog
import Hummingbird
import HummingbirdAuth
import HummingbirdCore
import Logging
import NIOCore
import CacheCore
import ServiceLifecycle
import Synchronization

/// `tweetcache serve`: the cache over HTTP, for Deep Zoom and IIIF viewers, for
/// scripts (`/blob`, `/manifests`) and for people (the viewer page at `/`).
///
/// Everything it serves is named by a content hash, so responses are immutable
/// and carry strong validators; tiles that are not on disk yet are made on the
/// first request and kept (see ``TileResponder``).
public final class TileServer: Sendable {
    public let port: Int
    /// The `Server` header.
    static let serverName = "tweetcache"
    public let configuration: TileServerConfiguration
    private let group: ServiceGroup
    private let task: Task<Void, any Error>
    /// The background pack builds, for tests that wait for them.
    let lazyPacks: LazyPacks
    /// The page's live searches, for tests that wait for one to end.
    let liveSearches: LiveSearches?

    /// `http://host:port` as bound.
    public var baseURL: String { "http://\(configuration.host):\(port)" }

    /// Where renders run, for tests that hold it busy.
    let pool: RenderPool
    /// The catalog and the forget watch, for tests that look into what the server holds.
    let catalog: CatalogCache
    let forgetWatch: ForgetWatch

    private init(
        port: Int, configuration: TileServerConfiguration, group: ServiceGroup, task: Task<Void, any Error>,
        lazyPacks: LazyPacks, liveSearches: LiveSearches?, pool: RenderPool, catalog: CatalogCache, forgetWatch: ForgetWatch
    ) {
        self.pool = pool
        self.catalog = catalog
        self.forgetWatch = forgetWatch
        self.lazyPacks = lazyPacks
        self.liveSearches = liveSearches
        self.port = port
        self.configuration = configuration
        self.group = group
        self.task = task
    }

    /// Starts serving and returns once the socket is listening.
    ///
    /// - Parameter executor: where the server's tasks run (every connection's and
    ///   request's task inherits it). By default the shared cooperative pool, which has
    ///   one thread per core: a process that also keeps those threads busy with
    ///   long synchronous work (the test suite, hundreds of tests at once) leaves the
    ///   server's requests waiting behind it, so such a process gives it threads of its own.
    public static func start(
        _ configuration: TileServerConfiguration, logger: Logger? = nil, executor: (any TaskExecutor)? = nil
    ) async throws -> TileServer {
        var log = logger ?? Logger(label: "tweetcache.serve")
        if logger == nil { log.logLevel = .warning }
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let made = try application(configuration, logger: log) { channel in
            continuation.yield(channel.localAddress?.port ?? 0)
            continuation.finish()
        }
        // A service group: stopping is a graceful shutdown (open requests finish).
        let group = ServiceGroup(configuration: .init(
            services: [made.app, made.forgetWatch, made.sessions], gracefulShutdownSignals: [], logger: log))
        // The stream ends when the server does too: a port already taken fails the run
        // before it is listening, and the wait below would otherwise never end.
        let task = Task(executorPreference: executor) {
            defer { continuation.finish() }
            try await group.run()
        }
        var bound = 0
        for await port in stream { bound = port }
        guard bound > 0 else {
            await group.triggerGracefulShutdown()
            let reason = await task.result
            if case let .failure(error) = reason {
                throw TileServerError.bindFailed("\(configuration.host):\(configuration.port): \(error)")
            }
            throw TileServerError.bindFailed("\(configuration.host):\(configuration.port)")
        }
        made.boundPort.port = bound
        return TileServer(port: bound, configuration: configuration, group: group, task: task, lazyPacks: made.lazyPacks,
                          liveSearches: made.liveSearches, pool: made.pool, catalog: made.catalog, forgetWatch: made.forgetWatch)
    }

    /// The server's application, not yet running: the responder with every route
    /// behind its middleware, over the HTTP/1.1 channel with the hot-response
    /// handler. ``start(_:logger:)`` runs it on a socket.
    static func application(
        _ configuration: TileServerConfiguration, logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) throws -> (app: Application<ServerResponder>, lazyPacks: LazyPacks, boundPort: SharedPort, liveSearches: LiveSearches?,
                 forgetWatch: ForgetWatch, sessions: MemoryPersistDriver<ContinuousClock>, pool: RenderPool, catalog: CatalogCache) {
        let metrics = ServerMetrics()
        if let health = configuration.store?.storage.health {
            metrics.storeUp(true)
            health.onChange { state in
                switch state {
                case .up:
                    metrics.storeUp(true)
                    logger.notice("the object store answers again")
                case let .down(_, reason):
                    metrics.storeUp(false)
                    logger.error("the object store is down (\(reason)); its requests answer 503 until a probe finds it back")
                }
            }
        }
        // Opened once (a cache of the layout before packs is converted before anything
        // is served). A cache the server cannot write is served all the same, with
        // tiles cut on request.
        var cache = configuration.cache
        if cache == nil {
            do { cache = try Cache.open(configuration.cacheRoot, logger: logger) } catch {
                logger.notice("the cache cannot be written (\(error)); tiles are cut on request and no packs are kept")
            }
        }
        let layout = cache?.layout ?? configuration.readOnlyLayout
        let integrity = IntegrityGuard(layout: layout, index: cache?.index, logger: logger, metrics: metrics)
        let files = try CacheFiles(layout: layout, remote: configuration.store, integrity: integrity)
        let pool = RenderPool(width: configuration.renderConcurrency)
        let boundPort = SharedPort(configuration.port)
        let hot = MemoryCache<HotResponse.Key, HotResponse>(capacity: configuration.memoryCacheBytes)
        let sources = SourceImages(files: files, pool: pool, maxPixels: configuration.maxPixels,
                                   capacity: configuration.decodedCacheBytes, onUndecodable: { metrics.undecodable() },
                                   onDecodedInPart: { metrics.decodedInPart() })
        let packs = PackReader(files: files, logger: logger)
        let store = configuration.buildsPacks && configuration.store == nil ? cache?.blobs : nil
        let lazyPacks = LazyPacks(store: store, files: files, sources: sources, reader: packs, logger: logger)
        let liveSearches = configuration.liveSearch.map(LiveSearches.init)
        let memory = ByteCache(capacity: configuration.memoryCacheBytes)
        let catalog = CatalogCache(layout: layout)
        let forgetWatch = ForgetWatch(log: TombstoneLog(cacheRoot: files.root), interval: configuration.forgetCheckInterval) {
            hot.removeAll()
            catalog.dropPerceptualIndex()
            memory.removeAll()
            packs.forgetAll()
            sources.forgetAll()
            logger.notice("posts were forgotten: the responses and images kept in memory were dropped")
        }
        let access = OperatorAccess.decide(
            host: configuration.host, publicURL: configuration.publicBaseURL, trustsProxy: configuration.trustsProxy,
            token: configuration.operatorToken, readOnly: configuration.readOnly)
        let responder = TileResponder(
            configuration: configuration,
            files: files,
            memory: memory,
            hot: hot,
            sources: sources,
            packs: packs,
            lazyPacks: lazyPacks,
            pool: pool,
            metrics: metrics,
            catalog: catalog,
            liveSearches: liveSearches,
            boundPort: { boundPort.port },
            access: access,
            renderLimit: configuration.renderRate > 0
                ? RenderLimiter(rate: configuration.renderRate, burst: configuration.renderBurst, clock: configuration.clock) : nil,
            signInLimit: RenderLimiter(rate: 1.0 / 6, burst: 10, clock: configuration.clock))
        let sessions = MemoryPersistDriver()
        let secure = configuration.publicBaseURL?.lowercased().hasPrefix("https://") == true
        var token: OperatorToken?
        if case let .token(given) = access { token = given }
        let chain = ServerMiddleware.chain(
            responder, hosts: HostPolicy(publicURL: configuration.publicBaseURL, allowed: configuration.allowedHosts),
            metrics: metrics, hot: hot, access: access, trustsProxy: configuration.trustsProxy,
            session: token.map { _ in
                SessionMiddleware(storage: sessions, configuration: .init(
                    sessionCookieParameters: .init(name: "tweetcache_session", path: "/", secure: secure, sameSite: .strict),
                    defaultSessionExpiration: TileResponder.sessionLength))
            },
            bearer: token.map { OperatorAuthenticator(token: $0) })
        let app = Application(
            responder: chain,
            server: HTTPServerBuilder { responder in
                TileServerChannel(responder: responder, hot: hot, idleTimeout: configuration.idleTimeout,
                                  onClientLeft: { metrics.clientLeft() })
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                 serverName: TileServer.serverName),
            onServerRunning: onServerRunning,
            logger: logger)
        return (app, lazyPacks, boundPort, liveSearches, forgetWatch, sessions, pool, catalog)
    }

    /// Stops accepting connections and returns once open requests are answered.
    public func stop() async {
        liveSearches?.cancel()
        await group.triggerGracefulShutdown()
        _ = await task.result
    }

    /// Returns when the server stops.
    public func wait() async throws {
        try await task.value
    }
}

/// The port the server bound, known only once it runs; the responder reads it for
/// IIIF ids when neither a public URL nor a usable `Host` is given.
final class SharedPort: Sendable {
    private let value: Atomic<Int>

    init(_ port: Int) { value = Atomic(port) }

    var port: Int {
        get { value.load(ordering: .acquiring) }
        set { value.store(newValue, ordering: .releasing) }
    }
}

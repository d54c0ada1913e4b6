import Foundation
public import BlobStore
public import CacheCore
public import ObjectStore
public import MediaFetch

/// How `tweetcache serve` serves a cache.
public struct TileServerConfiguration: Sendable {
    /// The cache directory (the one `fetch` writes).
    public var cacheRoot: URL
    /// Loopback by default: the cache is the user's own; exposing it is a choice.
    public var host: String = "127.0.0.1"
    /// 0 picks a free port (tests).
    public var port: Int = 8080
    /// The base the IIIF `id`s and redirects use, e.g. `https://tiles.example.org`
    /// behind a proxy. Nil: `http://<host>:<port>` as bound.
    public var publicBaseURL: String?
    /// Tile geometry of pyramids made on request (an existing `.dzi` wins).
    public var tileSize: Int = 256
    public var overlap: Int = 0
    public var quality: Int = 85
    /// IIIF size limits, advertised in `info.json` and enforced on every request.
    public var maxWidth: Int = 4096
    public var maxHeight: Int = 4096
    public var maxArea: Int = 4096 * 4096
    /// Originals claiming more pixels are refused before decoding.
    public var maxPixels: Int = 100_000_000
    /// Thumbnail sizes made on request; the pipeline's own sizes are always served.
    public var thumbnailSizes: ClosedRange<Int> = 16...2048
    /// The thumbnail sizes kept on disk when made on request: the pipeline's own
    /// (150, 600) and any given by `--thumb-sizes`. Other sizes are made into the
    /// bounded memory cache only, so a visitor asking for 2,000 sizes fills no disk.
    public var storedThumbnailSizes: Set<Int> = [150, 600]
    /// The operator's token (`--operator-token-file`): on a server others reach, it
    /// opens live search, history, metrics and manifests (``OperatorAccess``).
    public var operatorToken: OperatorToken?
    /// Turns the operator's routes off on any host (`--read-only`).
    public var readOnly = false
    /// A proxy in front sets `X-Forwarded-For` (`--trust-proxy`): the client's
    /// address comes from it, and the server counts as reachable by others.
    public var trustsProxy = false
    /// Uncached renders each client may start per second, after a burst of
    /// ``renderBurst`` (`--render-rate`, `--render-burst`); 0: no limit.
    public var renderRate: Double = 20
    public var renderBurst: Int = 200
    /// A request that has not been answered by then gets 503 (the work goes on and
    /// its result is kept for the next request).
    public var requestTimeout: Duration = .seconds(30)
    /// From this size up, a cold original of a bucket is answered on `/blob` as its
    /// bytes arrive (its first within ``requestTimeout``, the rest while they keep
    /// coming): over a slow store, waiting for the whole would outlast the deadline.
    var streamedOriginalBytes = 4 << 20
    /// The cache, opened by the caller (`serve`); nil has the server open it, and
    /// serve it read-only when it cannot be written.
    public var cache: Cache?
    /// The layout of a cache that could not be opened for writing, read as it is.
    public var readOnlyLayout: CacheLayout { Cache.readOnlyLayout(cacheRoot) }
    /// What the request time limit and the render limit are measured on (its uptime), and
    /// the viewer's dates and sign-ins are read from (its date); tests give a clock they drive.
    public var clock: any WallClock = SystemWallClock()
    /// A keep-alive connection with no request for this long is closed.
    public var idleTimeout: Duration = .seconds(75)
    /// Hot small files kept in memory (and, as much again, the complete answers
    /// repeated without the responder; the two share the bytes of a tile).
    public var memoryCacheBytes: Int = 64 << 20
    /// Host names the server answers for besides its own (loopback names and
    /// addresses, this machine's addresses, the public URL's host): `--allow-host`.
    /// Any other `Host` gets 421 (``HostPolicy``).
    public var allowedHosts: [String] = []
    /// How often the tombstone log is looked at: when `forget` (in another process)
    /// adds to it, every response and image kept in memory is dropped, so nothing it
    /// removed is served after that (``ForgetWatch``).
    public var forgetCheckInterval: Duration = .seconds(2)
    /// Decoded originals kept in memory for lazy tiles (a 4096x3072 image is 37 MB).
    public var decodedCacheBytes: Int = 384 << 20
    /// Whether a tile cut on request starts building its image's pyramid pack
    /// in the background (off for a server that must not write to the cache).
    public var buildsPacks: Bool = true
    /// Lets the page run live searches (with `serve`'s token); nil: the page filters
    /// the cached tweets and says that live search needs a token.
    public var liveSearch: LiveSearchConfiguration?
    /// Serve a bucket's objects (`serve --store`): whatever the cache directory
    /// lacks is read from the bucket through this bounded local copy; packs by
    /// range. The server then builds no packs and stays stateless but for the copy.
    public var store: ReadThroughCache?
    /// Images decoded or tiles made at once.
    public var renderConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount

    public init(cacheRoot: URL) {
        self.cacheRoot = cacheRoot
    }
}

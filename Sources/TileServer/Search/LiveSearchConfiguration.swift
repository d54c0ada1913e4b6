public import Foundation
public import LiveSearch

/// What `serve` needs to run searches for the page: without it (no token) the
/// page filters the cached tweets instead, and says so.
public struct LiveSearchConfiguration: Sendable {
    /// X's bearer token (`$TWEETCACHE_BEARER_TOKEN` or `--token-file`); never sent to the page.
    public var token: BearerToken?
    /// The API, its base URL, results per search, longest rate-limit wait and the
    /// clock those waits sleep on: the same client and options as `tweetcache search`.
    public var search: SearchOptions
    /// How the results' media are fetched and derived into the cache
    /// (`PipelineSearchCollector`).
    public var collector: any SearchCollector
    /// The cache whose search history (the page's last 100 searches) records each search.
    public var cacheRoot: URL

    public init(token: BearerToken?, search: SearchOptions, collector: any SearchCollector, cacheRoot: URL) {
        self.token = token
        self.search = search
        self.collector = collector
        self.cacheRoot = cacheRoot
    }
}

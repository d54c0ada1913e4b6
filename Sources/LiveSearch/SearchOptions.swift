import Foundation
import MediaFetch

/// How a search pages, waits and retries, and where it saves what it gets.
public struct SearchOptions: Sendable {
    public var api: SearchAPI = .v2
    /// Scheme, host and optional path prefix of a compatible server; nil for X's own.
    public var baseURL: String?
    /// Results wanted in all, over as many pages as it takes. v2 pages hold at least 10,
    /// so a smaller count can bring up to 10.
    public var count: Int = 100
    /// The longest the search waits for a rate-limit window to reset; past that it stops
    /// with what it has and says when to come back.
    public var maxWait: Duration = .seconds(15 * 60)
    /// Tries per page for 5xx answers and network failures, backing off between them.
    public var attempts: Int = 4
    public var backoffBase: Duration = .seconds(1)
    public var backoffCap: Duration = .seconds(30)
    /// Where pages are saved: `<cache>/results`.
    public var resultsDirectory: URL
    /// Timeouts and limits of the API calls (mirrors and media limits do not apply).
    public var fetch: FetchConfiguration = .init()
    /// Largest page accepted; a v2 page of 100 tweets with includes is a few hundred KB.
    public var maxPageBytes: Int = 16 << 20
    /// Bluesky only: sign in first (at the `--api-base`, else `https://bsky.social`,
    /// whose server answers app.bsky searches for its signed-in users).
    public var blueskyLogin: BlueskyLogin?
    /// What the collection already holds of this search (its newest post): only newer
    /// posts are asked for. Nil asks for everything (a first search, or `--all`).
    public var since: SearchBoundary?
    /// What rate-limit waits and retry backoffs read and sleep on.
    public var clock: any WallClock = SystemWallClock()

    public init(resultsDirectory: URL) {
        self.resultsDirectory = resultsDirectory
    }

    /// `<cacheRoot>/results`, the directory `tweetcache fetch` users look in.
    public init(cacheRoot: URL) {
        self.init(resultsDirectory: cacheRoot.appendingPathComponent("results", isDirectory: true))
    }
}

public import TweetModel

/// Which search endpoint a search uses: X's (v2 or v1.1), Mastodon's or Bluesky's.
///
/// v2 recent search is what X sells today; v1.1 `search/tweets` still answers for apps
/// with legacy access and for compatible proxies, and its pages are what most saved
/// archives hold, so both are spoken.
public enum SearchAPI: String, Sendable, Hashable, Codable, CaseIterable {
    case v2 = "v2"
    case v1_1 = "v1.1"
    /// Mastodon's REST API on one instance: `#tag` the public tag timeline, `@user@host`
    /// that account's statuses, anything else `/api/v2/search` (which needs a token).
    case mastodon = "mastodon"
    /// Bluesky's `app.bsky.feed.searchPosts` on an AppView (`#tag` and `from:handle`
    /// are understood by the service itself).
    case bluesky = "bluesky"

    /// Reads `v2`/`2` and `v1.1`/`1.1`/`v1`, as a user would type them.
    public init?(argument: String) {
        switch argument.lowercased() {
        case "v2", "2": self = .v2
        case "v1.1", "1.1", "v1", "1": self = .v1_1
        default: return nil
        }
    }

    /// Where the endpoint lives when no `--api-base` is given.
    public var defaultBaseURL: String {
        switch self {
        case .v2: "https://api.x.com"
        case .v1_1: "https://api.twitter.com"
        // No default instance: the user names theirs (`--instance`).
        case .mastodon: ""
        case .bluesky: "https://public.api.bsky.app"
        }
    }

    /// The endpoint's path under the base URL.
    public var path: String {
        switch self {
        case .v2: "/2/tweets/search/recent"
        case .v1_1: "/1.1/search/tweets.json"
        case .mastodon: "/api/v2/search"
        case .bluesky: "/xrpc/app.bsky.feed.searchPosts"
        }
    }

    /// How messages name the endpoint.
    public var displayName: String {
        switch self {
        case .v2: "v2 recent search"
        case .v1_1: "v1.1 search/tweets"
        case .mastodon: "Mastodon"
        case .bluesky: "Bluesky searchPosts"
        }
    }

    /// The page sizes the endpoint accepts (`max_results` 10-100, `count` up to 100).
    public var pageSizes: ClosedRange<Int> {
        switch self {
        case .v2: 10...100
        case .v1_1: 1...100
        case .mastodon: 1...40
        case .bluesky: 1...100
        }
    }

    /// The operator that leaves retweets out, appended unless retweets are wanted.
    var retweetFilter: String {
        switch self {
        case .v2: "-is:retweet"
        case .v1_1: "-filter:retweets"
        // Tag timelines and searches list original posts; account timelines are asked without reblogs.
        case .mastodon, .bluesky: ""
        }
    }

    /// The X API, as opposed to another network's.
    public var isX: Bool { network == .x }

    /// The network whose service this endpoint is: the one ``Network`` the parsers
    /// tag posts with, the CLI's `--network` names and the history's feed shows.
    public var network: Network {
        switch self {
        case .v2, .v1_1: .x
        case .mastodon: .mastodon
        case .bluesky: .bluesky
        }
    }

    /// The endpoint a search of `network` uses; for X, the version asked for.
    public init(network: Network, x version: SearchAPI = .v2) {
        switch network {
        case .x: self = version.isX ? version : .v2
        case .mastodon: self = .mastodon
        case .bluesky: self = .bluesky
        }
    }

    /// The network's name for messages.
    public var networkName: String {
        switch network {
        case .x: "X"
        case .mastodon: "Mastodon"
        case .bluesky: "Bluesky"
        }
    }
}

public import TweetModel

/// Which search API a search asks: X's (v2 or v1.1), Mastodon's or Bluesky's.
///
/// The case names what the user chose and what saved pages and the history record
/// (`v2`, `mastodon`); everything a search does differently per API is its
/// ``SearchService`` conformance's, made by ``service(query:credentials:baseURL:)``.
///
/// v2 recent search is what X sells today; v1.1 `search/tweets` still answers for apps
/// with legacy access and for compatible proxies, and its pages are what most saved
/// archives hold, so both are spoken.
public enum SearchAPI: String, Sendable, Hashable, Codable, CaseIterable {
    case v2 = "v2"
    case v1_1 = "v1.1"
    /// Mastodon's REST API on one instance .
    case mastodon = "mastodon"
    /// Bluesky's `app.bsky.feed.searchPosts` on an AppView.
    case bluesky = "bluesky"

    /// Reads `v2`/`2` and `v1.1`/`1.1`/`v1`, as a user would type them.
    public init?(argument: String) {
        switch argument.lowercased() {
        case "v2", "2": self = .v2
        case "v1.1", "1.1", "v1", "1": self = .v1_1
        default: return nil
        }
    }

    /// The network whose service this is: the one ``Network`` the parsers tag posts
    /// with, the CLI's `--network` names and the history's feed shows.
    public var network: Network {
        switch self {
        case .v2, .v1_1: .x
        case .mastodon: .mastodon
        case .bluesky: .bluesky
        }
    }

    /// The API a search of `network` uses; for X, the version asked for.
    public init(network: Network, x version: SearchAPI = .v2) {
        switch network {
        case .x: self = version.network == .x ? version : .v2
        case .mastodon: self = .mastodon
        case .bluesky: self = .bluesky
        }
    }

    /// How messages name the API.
    public var displayName: String {
        switch self {
        case .v2: "v2 recent search"
        case .v1_1: "v1.1 search/tweets"
        case .mastodon: "Mastodon"
        case .bluesky: "Bluesky searchPosts"
        }
    }

    /// The credential a search of this API signs in with, found where its users keep
    /// it (a token file given on the command line, the environment): required for X,
    /// optional for Mastodon and Bluesky.
    public func credentials(tokenFile: String?, environment: [String: String]) throws(LiveSearchError)
        -> SearchCredentials
    {
        switch network {
        case .x: try XSearch.credentials(tokenFile: tokenFile, environment: environment)
        case .mastodon: try MastodonSearch.credentials(tokenFile: tokenFile, environment: environment)
        case .bluesky: try BlueskySearch.credentials(tokenFile: tokenFile, environment: environment)
        }
    }

    /// The service that runs a search of `query` with `credentials`, at `baseURL` when
    /// given (a Mastodon instance; a compatible server), else the network's own.
    func service(query: SearchQuery, credentials: SearchCredentials, baseURL: String?) throws(LiveSearchError)
        -> any SearchService
    {
        switch self {
        case .v2, .v1_1: try XSearch(version: self, query: query, token: credentials.token, baseURL: baseURL)
        case .mastodon: try MastodonSearch(query: query, token: credentials.token, instance: baseURL)
        case .bluesky: try BlueskySearch(query: query, login: credentials.blueskyLogin, baseURL: baseURL)
        }
    }
}

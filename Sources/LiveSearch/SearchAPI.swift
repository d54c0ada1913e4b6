/// Which X API search endpoint a search uses.
///
/// v2 recent search is what X sells today; v1.1 `search/tweets` still answers for apps
/// with legacy access and for compatible proxies, and its pages are what most saved
/// archives hold, so both are spoken.
public enum SearchAPI: String, Sendable, Hashable, Codable, CaseIterable {
    case v2 = "v2"
    case v1_1 = "v1.1"

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
        }
    }

    /// The endpoint's path under the base URL.
    public var path: String {
        switch self {
        case .v2: "/2/tweets/search/recent"
        case .v1_1: "/1.1/search/tweets.json"
        }
    }

    /// How messages name the endpoint.
    public var displayName: String {
        switch self {
        case .v2: "v2 recent search"
        case .v1_1: "v1.1 search/tweets"
        }
    }

    /// The page sizes the endpoint accepts (`max_results` 10-100, `count` up to 100).
    public var pageSizes: ClosedRange<Int> {
        switch self {
        case .v2: 10...100
        case .v1_1: 1...100
        }
    }

    /// The operator that leaves retweets out, appended unless retweets are wanted.
    var retweetFilter: String {
        switch self {
        case .v2: "-is:retweet"
        case .v1_1: "-filter:retweets"
        }
    }
}

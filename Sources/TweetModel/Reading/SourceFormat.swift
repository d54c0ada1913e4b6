/// Which kind of saved API response (X, Mastodon or Bluesky) a document turned out to be.
///
/// Detected from the content, never declared by the user: tools save the same
/// tweets in many shapes and file names say nothing reliable.
public enum SourceFormat: String, Sendable, Codable, Hashable, CaseIterable {
    /// v1.1 `search/tweets`: `{"statuses": [...], "search_metadata": {...}}`.
    case v1Search
    /// v2 `tweets/search/recent` or `all`: `{"data": [...], "includes": {...}, "meta": {...}}`.
    case v2Search
    /// Premium / Enterprise search: `{"results": [...], "next": ...}` of v1.1 tweets.
    case premiumSearch
    /// A bare JSON array of v1.1 tweets, as timeline endpoints return.
    case v1Timeline
    /// A single v1.1 tweet object.
    case v1Tweet
    /// A single v2 tweet: `{"data": {...}, "includes": {...}}` or the bare tweet object.
    case v2Tweet
    /// A JSON array of Mastodon statuses: timelines (`/api/v1/timelines/tag/:tag`,
    /// `/timelines/public`, `/accounts/:id/statuses`).
    case mastodonStatuses
    /// Mastodon `/api/v2/search`: `{"accounts": [...], "statuses": [...], "hashtags": [...]}`.
    case mastodonSearch
    /// A single Mastodon status.
    case mastodonStatus
    /// Bluesky `app.bsky.feed.searchPosts` or `getPosts`: `{"posts": [...]}`.
    case blueskyPosts
    /// Bluesky `app.bsky.feed.getAuthorFeed` or `getTimeline`: `{"feed": [{"post": ..., "reason": ...}]}`.
    case blueskyFeed
    /// A single Bluesky post view.
    case blueskyPost
    /// A single Bluesky feed item, `{"post": ..., "reason": ...}` (a repost when `reason` says so).
    case blueskyFeedItem
}

extension SourceFormat {
    /// How messages name the format (a live search names the page it did not expect).
    public var displayName: String {
        switch self {
        case .v1Search: "v1.1 search page"
        case .v2Search: "v2 search page"
        case .premiumSearch: "premium search page"
        case .v1Timeline: "array of v1.1 tweets"
        case .v1Tweet: "v1.1 tweet"
        case .v2Tweet: "v2 tweet"
        case .mastodonStatuses: "array of Mastodon statuses"
        case .mastodonSearch: "Mastodon search result"
        case .mastodonStatus: "Mastodon status"
        case .blueskyPosts: "Bluesky posts"
        case .blueskyFeed: "Bluesky feed"
        case .blueskyPost: "Bluesky post"
        case .blueskyFeedItem: "Bluesky feed item"
        }
    }

    /// The network whose API serves this shape.
    public var network: Network {
        switch self {
        case .v1Search, .v2Search, .premiumSearch, .v1Timeline, .v1Tweet, .v2Tweet: .x
        case .mastodonStatuses, .mastodonSearch, .mastodonStatus: .mastodon
        case .blueskyPosts, .blueskyFeed, .blueskyPost, .blueskyFeedItem: .bluesky
        }
    }
}

/// Where a post was published. The pipeline after parsing does not care; people
/// reading a manifest or the viewer do (profile and post links differ).
public enum Network: String, Sendable, Codable, Hashable, CaseIterable {
    /// X (Twitter): API v1.1 and v2.
    case x
    /// Mastodon and other servers speaking its REST API.
    case mastodon
    /// Bluesky: the AT Protocol's `app.bsky` AppView.
    case bluesky
}

import TweetModel

/// The unique URLs a set of tweets needs, each once, in first-seen order.
///
/// Avatars are shared by every tweet of a user and photos by quotes and retweets, so
/// deduplicating here is what makes "a URL is fetched at most once per run" true
/// before any network work starts.
public struct FetchPlan: Sendable {
    public struct Item: Sendable, Hashable {
        public var url: String
        /// Tried on 404/410 (the avatar URL exactly as the API gave it).
        public var fallbacks: [String]
        public var role: MediaRole
    }

    public private(set) var items: [Item] = []
    private var seen: Set<String> = []

    public init(tweets: [Tweet], includeVideos: Bool) {
        for tweet in tweets {
            if let avatar = tweet.author.avatarURL {
                let given = tweet.author.profileImageURL
                add(avatar, role: .avatar, fallbacks: given.flatMap { $0 != avatar ? [$0] : nil } ?? [])
            }
            for m in tweet.media {
                // The API's own URL (X before the original-size rewrite, Mastodon's
                // `remote_url`, Bluesky's thumbnail) is tried when the image is gone.
                if let image = m.imageURL {
                    let fallback = m.sourceURL.flatMap { $0 != image ? [$0] : nil } ?? []
                    add(image, role: m.type == .photo ? .photo : .poster, fallbacks: fallback)
                }
                // An HLS playlist is no file to keep: skipped, with the reason in the manifest.
                if includeVideos, let video = m.videoURL, !m.videoIsPlaylist { add(video, role: .video) }
            }
        }
    }

    private mutating func add(_ url: String, role: MediaRole, fallbacks: [String] = []) {
        guard seen.insert(url).inserted else { return }
        items.append(Item(url: url, fallbacks: fallbacks, role: role))
    }
}

import Foundation

/// A post as one model for every API (X v1.1 and v2, Mastodon, Bluesky), holding
/// what a media cache and a reader need: full text with checked entity ranges,
/// author, media and references. Named for where the project began.
public struct Tweet: Sendable, Codable, Hashable, Identifiable {
    /// The tweet id as a string (ids exceed 2^53).
    public let id: String
    /// When it was posted; `nil` when the API omitted the field or sent a date in a
    /// form neither API uses.
    public let createdAt: Date?
    /// The full text: v1.1 `full_text` or `extended_tweet.full_text`, v2 `note_tweet.text`
    /// for long posts. The API's HTML escapes (`&amp;`, `&lt;`, `&gt;`) are decoded and
    /// every entity range has been moved to match the decoded text.
    public let text: String
    public let author: Author
    public let entities: Entities
    /// Media attached to this tweet, in the author's order. A retweet carries copies
    /// of the retweeted tweet's media, exactly as both APIs serve it.
    public let media: [MediaItem]
    /// Tweets this one quotes, retweets or replies to.
    public let references: [TweetReference]
    /// The BCP 47 language the API detected (`und` when it could not tell).
    public let lang: String?
    /// Where it was posted; X for every Twitter format.
    public let network: Network
    /// The post's page, when the API gives it (Mastodon `url`) or it follows from the
    /// ids (Bluesky `bsky.app/profile/<handle>/post/<rkey>`); nil for X, whose link the
    /// reader builds from the handle and id.
    public let url: String?
    /// Marked sensitive (X `possibly_sensitive`, Mastodon `sensitive`, Bluesky adult or
    /// graphic labels): the viewer blurs its media until clicked, as the apps do.
    public let sensitive: Bool
    /// The content warning shown before the post (Mastodon `spoiler_text`), if any.
    public let spoilerText: String?

    public init(
        id: String,
        createdAt: Date?,
        text: String,
        author: Author,
        entities: Entities = Entities(),
        media: [MediaItem] = [],
        references: [TweetReference] = [],
        lang: String? = nil,
        network: Network = .x,
        url: String? = nil,
        sensitive: Bool = false,
        spoilerText: String? = nil
    ) {
        self.id = id
        self.createdAt = createdAt
        self.text = text
        self.author = author
        self.entities = entities
        self.media = media
        self.references = references
        self.lang = lang
        self.network = network
        self.url = url
        self.sensitive = sensitive
        self.spoilerText = spoilerText
    }

    private enum CodingKeys: String, CodingKey {
        case id, createdAt, text, author, entities, media, references, lang, network, url, sensitive, spoilerText
    }

    /// Tweets encoded before other networks existed have no `network`: they are X's.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(String.self, forKey: .id),
            createdAt: try c.decodeIfPresent(Date.self, forKey: .createdAt),
            text: try c.decode(String.self, forKey: .text),
            author: try c.decode(Author.self, forKey: .author),
            entities: try c.decodeIfPresent(Entities.self, forKey: .entities) ?? Entities(),
            media: try c.decodeIfPresent([MediaItem].self, forKey: .media) ?? [],
            references: try c.decodeIfPresent([TweetReference].self, forKey: .references) ?? [],
            lang: try c.decodeIfPresent(String.self, forKey: .lang),
            network: try c.decodeIfPresent(Network.self, forKey: .network) ?? .x,
            url: try c.decodeIfPresent(String.self, forKey: .url),
            sensitive: try c.decodeIfPresent(Bool.self, forKey: .sensitive) ?? false,
            spoilerText: try c.decodeIfPresent(String.self, forKey: .spoilerText))
    }

    /// The id of the tweet this one references with `kind`, if any.
    public func referencedID(_ kind: TweetReference.Kind) -> String? {
        references.first { $0.kind == kind }?.id
    }
}

import Foundation

/// A tweet as one model for both API versions, holding what a media cache and a
/// reader need: full text with checked entity ranges, author, media and references.
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

    public init(
        id: String,
        createdAt: Date?,
        text: String,
        author: Author,
        entities: Entities = Entities(),
        media: [MediaItem] = [],
        references: [TweetReference] = [],
        lang: String? = nil
    ) {
        self.id = id
        self.createdAt = createdAt
        self.text = text
        self.author = author
        self.entities = entities
        self.media = media
        self.references = references
        self.lang = lang
    }

    /// The id of the tweet this one references with `kind`, if any.
    public func referencedID(_ kind: TweetReference.Kind) -> String? {
        references.first { $0.kind == kind }?.id
    }
}

/// The parts of a tweet's text the API already recognised, each with its range in
/// ``Tweet/text``.
///
/// Every range here has been checked to fit the stored text; ranges the API got wrong
/// are dropped rather than clamped, so slicing never produces misleading fragments.
public struct Entities: Sendable, Codable, Hashable {
    public var hashtags: [Hashtag]
    public var mentions: [Mention]
    public var urls: [URLEntity]
    public var cashtags: [Cashtag]
    /// v1.1 only: the media links; always empty for v2.
    public var media: [MediaRange]

    public init(
        hashtags: [Hashtag] = [],
        mentions: [Mention] = [],
        urls: [URLEntity] = [],
        cashtags: [Cashtag] = [],
        media: [MediaRange] = []
    ) {
        self.hashtags = hashtags
        self.mentions = mentions
        self.urls = urls
        self.cashtags = cashtags
        self.media = media
    }

    /// True when the API reported nothing in the text.
    public var isEmpty: Bool {
        hashtags.isEmpty && mentions.isEmpty && urls.isEmpty && cashtags.isEmpty && media.isEmpty
    }
}

/// The `t.co` link v1.1 appends to a tweet's text for its attached media.
///
/// Kept so a renderer can hide the link it replaces with the images; v2 reports the
/// same link as an ordinary URL entity instead.
public struct MediaRange: Sendable, Codable, Hashable {
    /// Where the media link sits in ``Tweet/text``.
    public let range: TextRange
    /// The ``MediaItem/id`` of the media the link stands for.
    public let mediaID: String

    public init(range: TextRange, mediaID: String) {
        self.range = range
        self.mediaID = mediaID
    }
}

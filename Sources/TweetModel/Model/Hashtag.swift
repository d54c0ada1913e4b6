/// A `#tag` in a tweet's text.
public struct Hashtag: Sendable, Codable, Hashable {
    /// Where `#tag` sits in ``Tweet/text``, including the `#`.
    public let range: TextRange
    /// The tag without its `#`, as the API reports it.
    public let tag: String

    public init(range: TextRange, tag: String) {
        self.range = range
        self.tag = tag
    }
}

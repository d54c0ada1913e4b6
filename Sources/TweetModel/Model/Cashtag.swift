/// A `$TICKER` symbol in a tweet's text (v1.1 `symbols`, v2 `cashtags`).
public struct Cashtag: Sendable, Codable, Hashable {
    /// Where `$TICKER` sits in ``Tweet/text``, including the `$`.
    public let range: TextRange
    /// The symbol without its `$`.
    public let tag: String

    public init(range: TextRange, tag: String) {
        self.range = range
        self.tag = tag
    }
}

/// A link in a tweet's text. The text holds the `t.co` wrapper; the other forms are
/// what a reader should see and where the link really goes.
public struct URLEntity: Sendable, Codable, Hashable {
    /// Where the `t.co` link sits in ``Tweet/text``.
    public let range: TextRange
    /// The `t.co` link exactly as it appears in the text.
    public let url: String
    /// The link the author posted, when the API expanded it.
    public let expandedURL: String?
    /// The shortened form Twitter shows in place of the link.
    public let displayURL: String?

    public init(range: TextRange, url: String, expandedURL: String? = nil, displayURL: String? = nil) {
        self.range = range
        self.url = url
        self.expandedURL = expandedURL
        self.displayURL = displayURL
    }
}

/// An `@username` in a tweet's text.
public struct Mention: Sendable, Codable, Hashable {
    /// Where `@username` sits in ``Tweet/text``, including the `@`.
    public let range: TextRange
    /// The handle without its `@`.
    public let username: String
    /// The mentioned account's id when the API resolved it; v2 omits it for suspended
    /// or deleted accounts.
    public let id: String?

    public init(range: TextRange, username: String, id: String? = nil) {
        self.range = range
        self.username = username
        self.id = id
    }
}

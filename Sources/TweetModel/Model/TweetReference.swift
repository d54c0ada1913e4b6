/// A link from one tweet to another it quotes, retweets or answers.
///
/// Quoted and retweeted tweets are parsed as tweets of their own (see
/// ``ResultsPage/includedTweets``), so media shown inside a quote or retweet is
/// reached through this reference rather than copied into the outer tweet.
public struct TweetReference: Sendable, Codable, Hashable {
    /// How the two tweets are related; raw values follow v2's `referenced_tweets.type`.
    public enum Kind: String, Sendable, Codable, Hashable, CaseIterable {
        case quoted
        case retweeted
        case repliedTo = "replied_to"
    }

    public let kind: Kind
    /// The referenced tweet's id.
    public let id: String

    public init(kind: Kind, id: String) {
        self.kind = kind
        self.id = id
    }
}

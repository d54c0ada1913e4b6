/// One API response (one page of results), parsed.
public struct ResultsPage: Sendable, Codable, Hashable {
    public let format: SourceFormat
    /// The results themselves, in the order the API returned them.
    public let tweets: [Tweet]
    /// Tweets the results quote or retweet, each once. Their media belong to them; the
    /// outer tweet points at them through ``Tweet/references``.
    public let includedTweets: [Tweet]
    /// The search query, decoded, when the response records it.
    public let query: String?
    /// What to ask for the next page: v1.1 `next_results`, v2 `next_token`, premium `next`.
    public let nextToken: String?
    /// Tweets skipped as malformed and errors the API reported alongside the results.
    public let problems: [ParseProblem]

    public init(
        format: SourceFormat,
        tweets: [Tweet],
        includedTweets: [Tweet] = [],
        query: String? = nil,
        nextToken: String? = nil,
        problems: [ParseProblem] = []
    ) {
        self.format = format
        self.tweets = tweets
        self.includedTweets = includedTweets
        self.query = query
        self.nextToken = nextToken
        self.problems = problems
    }
}

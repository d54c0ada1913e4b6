import Foundation

/// The JSON a run writes: every tweet linked to the cached bytes of its avatar and
/// media, failures included, so a viewer or script never has to re-parse API JSON
/// or guess which file belongs to which tweet.
///
/// Key names are a contract (later tools and users' scripts read them): they are
/// spelled out in `CodingKeys` and described by `docs/manifest.schema.json`.
public struct Manifest: Codable, Sendable, Equatable {
    public static let currentVersion = 1

    public var version: Int = Manifest.currentVersion
    public var generatedAt: Date
    public var tool: String
    public var cacheRoot: String
    public var sources: [Source]
    public var tweets: [ManifestTweet]
    /// Quoted and retweeted tweets, each once; their media belong to them, and the
    /// tweets that embed them say so in `referenced_tweets`.
    public var includedTweets: [ManifestTweet]
    public var failures: [Failure]
    public var summary: RunSummary

    enum CodingKeys: String, CodingKey {
        case version, tool, sources, tweets, failures, summary
        case generatedAt = "generated_at"
        case cacheRoot = "cache_root"
        case includedTweets = "included_tweets"
    }

    /// One input document.
    public struct Source: Codable, Sendable, Equatable {
        public var path: String
        public var formats: [String]
        public var query: String?
        public var tweets: Int
        public var problems: [Problem]
        /// The search the source's pages came from, when a search saved them.
        public var search: SearchRecord?

        public init(
            path: String,
            formats: [String],
            query: String? = nil,
            tweets: Int,
            problems: [Problem],
            search: SearchRecord? = nil
        ) {
            self.path = path
            self.formats = formats
            self.query = query
            self.tweets = tweets
            self.problems = problems
            self.search = search
        }
    }

    /// A part of an input that could not be read; the rest of the input was used.
    public struct Problem: Codable, Sendable, Equatable {
        public var source: String
        public var location: String
        public var message: String

        public init(
            source: String,
            location: String,
            message: String
        ) {
            self.source = source
            self.location = location
            self.message = message
        }
    }

    /// A URL that could not be cached, with the reason.
    public struct Failure: Codable, Sendable, Equatable {
        public var url: String
        public var role: String
        public var error: MediaError

        public init(
            url: String,
            role: String,
            error: MediaError
        ) {
            self.url = url
            self.role = role
            self.error = error
        }
    }

    public init(
        version: Int = Manifest.currentVersion,
        generatedAt: Date,
        tool: String,
        cacheRoot: String,
        sources: [Source],
        tweets: [ManifestTweet],
        includedTweets: [ManifestTweet],
        failures: [Failure],
        summary: RunSummary
    ) {
        self.version = version
        self.generatedAt = generatedAt
        self.tool = tool
        self.cacheRoot = cacheRoot
        self.sources = sources
        self.tweets = tweets
        self.includedTweets = includedTweets
        self.failures = failures
        self.summary = summary
    }
}

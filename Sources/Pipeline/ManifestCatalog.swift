import BlobStore
import Foundation

/// One manifest file as the catalog saw it.
public struct ManifestFileInfo: Sendable, Equatable, Codable {
    /// Relative to the cache root: `manifests/<stamp>.json`.
    public var path: String
    public var generatedAt: Date
    public var tweets: Int

    public init(path: String, generatedAt: Date, tweets: Int) {
        self.path = path
        self.generatedAt = generatedAt
        self.tweets = tweets
    }

    enum CodingKeys: String, CodingKey {
        case path, tweets
        case generatedAt = "generated_at"
    }
}

/// Every tweet the cache's manifests know about, merged: the terminal commands and
/// the tile server answer "which tweets, which images" from this rather than each
/// re-reading and re-merging the run files.
///
/// A tweet fetched by several runs appears once, as the newest run saw it (its media
/// may have been cached since, or its text edited). A damaged or foreign file in
/// `manifests/` is named in ``problems`` and skipped: one bad file must not hide the
/// rest of the cache.
public struct ManifestCatalog: Sendable {
    public var manifests: [ManifestFileInfo]
    public var tweets: [ManifestTweet]
    public var includedTweets: [ManifestTweet]
    public var problems: [String]
    /// Every blob any loaded manifest names (avatars, media, videos), before the
    /// newest-wins merge: an older run's avatar is still referenced by that run.
    public var referencedHashes: Set<String> = []

    public init(
        manifests: [ManifestFileInfo] = [], tweets: [ManifestTweet] = [],
        includedTweets: [ManifestTweet] = [], problems: [String] = []
    ) {
        self.manifests = manifests
        self.tweets = tweets
        self.includedTweets = includedTweets
        self.problems = problems
    }

    /// Manifests larger than this are refused: a run of 100k tweets writes tens of
    /// megabytes, a gigabyte is not a manifest.
    public static let maximumFileSize = 1 << 30

    /// Reads every `<cacheRoot>/manifests/*.json`; never throws, see ``problems``.
    public static func load(cacheRoot: URL) -> ManifestCatalog {
        let directory = CacheLayout(root: cacheRoot).manifestsURL
        var catalog = ManifestCatalog()
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
                .sorted()
        } catch {
            if FileManager.default.fileExists(atPath: directory.path) {
                catalog.problems.append("manifests/: cannot list (\((error as NSError).localizedDescription))")
            }
            return catalog
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var loaded: [(info: ManifestFileInfo, manifest: Manifest)] = []
        for name in names {
            let relative = CacheLayout.manifest(name)
            let url = directory.appendingPathComponent(name)
            do {
                let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
                guard size <= maximumFileSize else {
                    catalog.problems.append("\(relative): larger than 1 GB, skipped")
                    continue
                }
                let manifest = try decoder.decode(Manifest.self, from: Data(contentsOf: url))
                loaded.append((ManifestFileInfo(path: relative, generatedAt: manifest.generatedAt,
                                                tweets: manifest.tweets.count), manifest))
            } catch let error as DecodingError {
                catalog.problems.append("\(relative): not a TweetCache manifest (\(Self.describe(error)))")
            } catch {
                catalog.problems.append("\(relative): unreadable (\((error as NSError).localizedDescription))")
            }
        }
        // Oldest first, so a newer run's copy of a tweet replaces an older one.
        loaded.sort { ($0.info.generatedAt, $0.info.path) < ($1.info.generatedAt, $1.info.path) }
        var tweets: [String: ManifestTweet] = [:]
        var included: [String: ManifestTweet] = [:]
        for (_, manifest) in loaded {
            for tweet in manifest.tweets { tweets[tweet.id] = tweet }
            for tweet in manifest.includedTweets { included[tweet.id] = tweet }
            for tweet in manifest.tweets + manifest.includedTweets {
                if let avatar = tweet.author.avatar?.sha256 { catalog.referencedHashes.insert(avatar) }
                for media in tweet.media {
                    if let sha = media.sha256 { catalog.referencedHashes.insert(sha) }
                    if let sha = media.video?.sha256 { catalog.referencedHashes.insert(sha) }
                }
            }
        }
        catalog.manifests = loaded.map(\.info)
        catalog.tweets = tweets.values.sorted(by: Self.newestFirst)
        catalog.includedTweets = included.values.sorted(by: Self.newestFirst)
        return catalog
    }

    /// The tweets (not included ones) carrying hashtag `tag` and/or written by `user`,
    /// and/or containing `text` (in the text, the author's name or screen name).
    ///
    /// `tag` matches case-insensitively with or without its `#` (hashtags and
    /// cashtags); `user` is the author's screen name, case-insensitive, with or
    /// without `@` (mentions do not count: "tweets by" is what people ask for).
    public func tweets(tag: String?, user: String?, text: String? = nil) -> [ManifestTweet] {
        let wantedText = text.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.flatMap { $0.isEmpty ? nil : $0 }
        let wantedTag = tag.map { Self.normalise($0, dropping: ["#", "$"]) }.flatMap { $0.isEmpty ? nil : $0 }
        let wantedUser = user.map { Self.normalise($0, dropping: ["@"]) }.flatMap { $0.isEmpty ? nil : $0 }
        return tweets.filter { tweet in
            if let wantedUser, tweet.author.screenName.lowercased() != wantedUser { return false }
            if let wantedTag {
                let tags = tweet.entities.hashtags.map(\.tag) + tweet.entities.cashtags.map(\.tag)
                if !tags.contains(where: { Self.normalise($0, dropping: ["#", "$"]) == wantedTag }) { return false }
            }
            if let wantedText {
                return [tweet.text, tweet.author.name, tweet.author.screenName].contains { $0.lowercased().contains(wantedText) }
            }
            return true
        }
    }

    /// A tweet by id, searching the tweets and then the included (quoted, retweeted) ones.
    public func tweet(id: String) -> ManifestTweet? {
        tweets.first { $0.id == id } ?? includedTweets.first { $0.id == id }
    }

    /// Newest `created_at` first, undated last; ties by id, numerically descending
    /// (snowflake ids grow with time), as strings when not numbers.
    static func newestFirst(_ a: ManifestTweet, _ b: ManifestTweet) -> Bool {
        comesBefore((a.createdAt, a.id), (b.createdAt, b.id))
    }

    /// The order of ``tweets``, on the two fields it reads: a page cursor holds just these.
    public static func comesBefore(_ a: (createdAt: Date?, id: String), _ b: (createdAt: Date?, id: String)) -> Bool {
        switch (a.createdAt, b.createdAt) {
        case let (x?, y?) where x != y: return x > y
        case (.some, nil): return true
        case (nil, .some): return false
        default: return idDescending(a.id, b.id)
        }
    }

    static func idDescending(_ a: String, _ b: String) -> Bool {
        let aNumeric = !a.isEmpty && a.utf8.allSatisfy { (48...57).contains($0) }
        let bNumeric = !b.isEmpty && b.utf8.allSatisfy { (48...57).contains($0) }
        if aNumeric, bNumeric {
            let x = a.drop { $0 == "0" }, y = b.drop { $0 == "0" }
            if x.count != y.count { return x.count > y.count }
            return x > y
        }
        return a > b
    }

    private static func normalise(_ text: String, dropping prefixes: Set<Character>) -> String {
        var t = Substring(text.trimmingCharacters(in: .whitespaces))
        while let first = t.first, prefixes.contains(first) { t = t.dropFirst() }
        return t.lowercased()
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case let .keyNotFound(key, _): return "missing \(key.stringValue)"
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .dataCorrupted(context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

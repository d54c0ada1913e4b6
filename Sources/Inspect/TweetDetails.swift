import Catalog
import BlobStore
import Foundation
import CacheCore
import TweetModel

/// `tweetcache info TWEET-ID`: the original app's detail screen. Sections are
/// printed only when they have something in them.
public struct TweetDetails: Sendable, Encodable, Equatable {
    public struct Image: Sendable, Codable, Equatable {
        public var sha256: String?
        public var type: String
        public var url: String?
        public var bytes: Int?
        public var width: Int?
        public var height: Int?
        public var error: String?
        /// Other cached photos within PDQ's match distance (set by ``findDuplicates(_:)``).
        public var nearDuplicates: [NearDuplicate]? = nil
        enum CodingKeys: String, CodingKey {
            case sha256, type, url, bytes, width, height, error
            case nearDuplicates = "near_duplicates"
        }
    }

    public struct Link: Sendable, Codable, Equatable {
        public var url: String
        public var expandedURL: String?
        enum CodingKeys: String, CodingKey {
            case url
            case expandedURL = "expanded_url"
        }
    }

    public var id: String
    public var screenName: String
    public var name: String
    public var createdAt: Date?
    public var age: String
    public var text: String
    public var images: [Image]
    public var urls: [Link]
    public var hashtags: [String]
    public var users: [String]
    /// `x`, `mastodon` or `bluesky`.
    public var network: String
    /// The post on its network: X's from the handle and id, the others' as their API gave it.
    public var link: String?
    /// The author's profile: `x.com/<handle>`, `https://<host>/@<user>`, `bsky.app/profile/<handle>`.
    public var profile: String?

    enum CodingKeys: String, CodingKey {
        case id, name, age, text, images, urls, hashtags, users, network, link, profile
        case screenName = "screen_name"
        case createdAt = "created_at"
    }

    let entities: ManifestTweet.Entities
    let rawText: String

    public init(tweet: ManifestTweet, now: Date) {
        id = tweet.id
        screenName = tweet.author.screenName
        name = tweet.author.name
        createdAt = tweet.createdAt
        age = tweet.createdAt.map { RelativeTime.string(from: $0, now: now) } ?? ""
        let spans = EntitySpans(text: tweet.text, entities: tweet.entities)
        text = spans.plainText
        images = tweet.media.map { m in
            Image(sha256: m.sha256, type: m.type, url: m.url, bytes: m.bytes, width: m.width, height: m.height,
                  error: m.error.map { "\($0.code): \($0.message)" })
        }
        urls = tweet.entities.urls.map { Link(url: $0.url, expandedURL: $0.expandedURL) }
        hashtags = tweet.entities.hashtags.map { "#\($0.tag)" } + tweet.entities.cashtags.map { "$\($0.tag)" }
        var seen = Set<String>()
        users = tweet.entities.mentions.map { "@\($0.username)" }.filter { seen.insert($0.lowercased()).inserted }
        entities = tweet.entities
        rawText = tweet.text
        let network = Network(manifestValue: tweet.network)
        self.network = network?.rawValue ?? tweet.network ?? Network.x.rawValue
        link = network?.postURL(id: tweet.id, handle: tweet.author.screenName, given: tweet.url)
        profile = network?.profileURL(handle: tweet.author.screenName, postURL: link)
    }

    /// Looks up the near-duplicates of each cached photo.
    public mutating func findDuplicates(_ finder: DuplicateFinder) {
        for i in images.indices {
            guard let sha = images[i].sha256 else { continue }
            let found = finder.nearDuplicates(of: sha)
            images[i].nearDuplicates = found.isEmpty ? nil : found
        }
    }

    public func text(style: Style) -> String {
        var lines: [String] = []
        let age = self.age.isEmpty ? "" : " · \(self.age)"
        // Every field below comes from an API: control characters (terminal escapes) become spaces.
        let line = TweetList.oneLine
        lines.append(style.paint("@\(line(screenName))", .name) + " " + line(name) + style.paint(age, .dim))
        lines += EntitySpans(text: rawText, entities: entities).rendered(style)
            .split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
        lines.append(style.paint("  id \(line(id))" + (network == "x" ? "" : " · \(network)"), .dim))
        if let link { lines.append(style.paint("  \(line(link))", .dim)) }
        if let profile { lines.append(style.paint("  by \(line(profile))", .dim)) }
        if !images.isEmpty {
            lines.append("Images")
            for image in images {
                var parts = [image.sha256.map { String($0.prefix(12)) } ?? "(not cached)", image.type]
                if let bytes = image.bytes { parts.append(ByteCount.format(bytes)) }
                if let w = image.width, let h = image.height { parts.append("\(w)x\(h)") }
                if let error = image.error { parts.append(style.paint(line(error), .warning)) }
                if let summary = image.nearDuplicates.flatMap(DuplicateFinder.summary) { parts.append(style.paint(summary, .warning)) }
                lines.append("  " + parts.joined(separator: "  "))
            }
        }
        if !urls.isEmpty {
            lines.append("URLs")
            lines += urls.map { "  " + style.paint(line($0.expandedURL ?? $0.url), .url) }
        }
        if !hashtags.isEmpty {
            lines.append("Hashtags")
            lines += hashtags.map { "  " + style.paint(line($0), .hashtag) }
        }
        if !users.isEmpty {
            lines.append("Users")
            lines += users.map { "  " + style.paint(line($0), .mention) }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

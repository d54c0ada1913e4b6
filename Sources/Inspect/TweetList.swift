import Catalog
import Foundation
import CacheCore
import TweetModel

/// `tweetcache tweets`: the original app's tweet list, as text or JSON rows.
public struct TweetList: Sendable {
    public struct Row: Sendable, Codable, Equatable {
        public var id: String
        public var screenName: String
        public var name: String
        public var createdAt: Date?
        /// `53m`, `1h 53m`, `4d` (``RelativeTime``); empty when the date is unknown.
        public var age: String
        /// As shown: URLs in display form, media links dropped.
        public var text: String
        public var photos: Int
        public var media: [String]
        public var entities: [Entity]

        public struct Entity: Sendable, Codable, Equatable {
            public var kind: EntitySpans.Kind
            /// Scalar offsets in the manifest's `text`.
            public var start: Int
            public var end: Int
            public var text: String
        }

        enum CodingKeys: String, CodingKey {
            case id, name, age, text, photos, media, entities
            case screenName = "screen_name"
            case createdAt = "created_at"
        }
    }

    public var rows: [Row]
    let tweets: [ManifestTweet]

    /// The newest `limit` posts (all without one) with `tag`, by `user` and holding the
    /// words of `text` (``PostFilter/text``), read from the catalog a page at a time.
    public init(catalog: PostCatalog, tag: String?, user: String?, text: String? = nil, limit: Int?,
                now: Date) throws(InspectError) {
        let filter = PostFilter(tag: tag, user: user, text: text)
        var selected: [ManifestTweet] = []
        do {
            if let limit {
                selected = try catalog.posts(filter, limit: max(0, limit))
            } else {
                try catalog.forEachPost(filter) { selected.append($0) }
            }
        } catch {
            throw .cache("\(error)")
        }
        tweets = selected
        rows = selected.map { tweet in
            let spans = EntitySpans(text: tweet.text, entities: tweet.entities)
            return Row(
                id: tweet.id, screenName: tweet.author.screenName, name: tweet.author.name,
                createdAt: tweet.createdAt,
                age: tweet.createdAt.map { RelativeTime.string(from: $0, now: now) } ?? "",
                text: spans.plainText,
                photos: tweet.media.filter { $0.type == "photo" }.count,
                media: tweet.media.compactMap(\.sha256),
                entities: spans.segments.compactMap { s in
                    s.kind.map { Row.Entity(kind: $0, start: s.start, end: s.end, text: s.text) }
                })
        }
    }

    /// Two lines a tweet: `@screen_name Name · age`, then the text (indented, every
    /// line) followed by a camera mark per photo.
    public func text(style: Style) -> String {
        var out = ""
        for (row, tweet) in zip(rows, tweets) {
            let age = row.age.isEmpty ? "" : " · \(row.age)"
            out += style.paint("@\(Self.oneLine(row.screenName))", .name) + " " + Self.oneLine(row.name)
                + style.paint(age, .dim) + "\n"
            var body = EntitySpans(text: tweet.text, entities: tweet.entities).rendered(style)
            if row.photos > 0 { body += (body.isEmpty ? "" : " ") + String(repeating: "📷", count: row.photos) }
            let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
            out += lines.map { "  " + $0 }.joined(separator: "\n") + "\n"
        }
        return out
    }

    /// Names are untrusted: no control characters (a name could move the cursor).
    static func oneLine(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }
}

import Foundation

/// Realistic search results for the built-in demo, which must run with no internet.
///
/// Two documents as the APIs serve them, a v1.1 `search/tweets` page and a v2
/// `tweets/search/recent` page for `#ucd`, plus the list of files their URLs point at.
/// Everything comes from one seeded generator and a fixed reference date, so a given
/// seed yields byte-identical JSON on every machine and every run: demo output can be
/// compared, cached and tested.
///
/// The documents exercise what real results contain: a dozen authors whose avatars
/// many tweets share, tweets with zero to four photos in the sizes Twitter serves
/// originals at (up to 4096x3072), a video with several MP4 bitrates and an HLS
/// playlist, an animated GIF, a retweet and a quote whose media belong to the inner
/// tweet, emoji and HTML-escaped characters before entities, and entity offsets counted
/// in code points of the escaped text, as the APIs count them.
public struct SampleResults: Sendable {
    /// The v1.1 `search/tweets` page (extended mode).
    public let v1Search: Data
    /// The v2 `tweets/search/recent` page with `includes`.
    public let v2Search: Data
    /// Every file the documents' media and avatar URLs name, each once.
    public let assets: [SampleAsset]

    /// The moment the sample "was fetched": tweets are spread over the days before it.
    /// Fixed (2024-03-15T12:00:00Z) so the output never depends on the clock.
    public static let referenceDate = Date(timeIntervalSince1970: 1_710_504_000)

    /// Tweets in each document's results (not counting quoted or retweeted originals).
    public static let tweetsPerDocument = 30

    /// Builds the sample; the same seed always gives the same bytes.
    public static func make(seed: UInt64 = 1) -> SampleResults {
        var generator = SampleGenerator(seed: seed)
        return generator.make()
    }
}

// MARK: - Generator


/// Tweet text as the APIs serve it: `&`, `<`, `>` escaped, entity offsets counted in
/// code points of that escaped text.
private struct SampleText {
    struct Entity {
        enum Kind {
            case hashtag(String)
            case mention(Int)                       // index into the users
            case link(url: String, expanded: String, display: String)
        }
        var kind: Kind
        var start: Int
        var end: Int
    }

    private(set) var escaped = ""
    private(set) var count = 0
    private(set) var entities: [Entity] = []

    mutating func append(_ plain: String) {
        for scalar in plain.unicodeScalars {
            switch scalar {
            case "&": raw("&amp;")
            case "<": raw("&lt;")
            case ">": raw("&gt;")
            default:
                escaped.unicodeScalars.append(scalar)
                count += 1
            }
        }
    }

    private mutating func raw(_ text: String) {
        escaped += text
        count += text.unicodeScalars.count
    }

    mutating func entity(_ kind: Entity.Kind, text: String) {
        let start = count
        append(text)
        entities.append(Entity(kind: kind, start: start, end: count))
    }

    /// Re-adds an entity of another text at an offset (for a retweet's copied text).
    mutating func adopt(_ entity: Entity, shiftedBy shift: Int) {
        entities.append(Entity(kind: entity.kind, start: entity.start + shift, end: entity.end + shift))
    }
}

/// One piece of a tweet template.
private enum Segment {
    case text(String)
    case hashtag(String)
    /// A mention of some other sample user.
    case mention
    case link(expanded: String, display: String)
}

private struct SampleUser {
    let id: UInt64
    let screenName: String
    let name: String
    let bio: String
    let avatarURL: String
    let createdAt: Date
    let followers: Int
}

private enum SampleMedia {
    case photo(id: UInt64, name: String, width: Int, height: Int, altText: String?)
    case video(id: UInt64, poster: String, variants: [(bitrate: Int, width: Int, height: Int, name: String)], playlist: String)
    case gif(id: UInt64, poster: String, mp4: String, width: Int, height: Int)

    var id: UInt64 {
        switch self {
        case .photo(let id, _, _, _, _), .video(let id, _, _, _), .gif(let id, _, _, _, _): id
        }
    }

    var mediaKey: String {
        switch self {
        case .photo: "3_\(id)"
        case .video: "7_\(id)"
        case .gif: "16_\(id)"
        }
    }

    var pathKind: String {
        switch self {
        case .photo, .gif: "photo"
        case .video: "video"
        }
    }
}

private final class SampleTweet {
    let id: UInt64
    let date: Date
    let author: Int
    let text: SampleText
    let media: [SampleMedia]
    /// The t.co link for the media, appended to the text when there is media.
    let mediaLink: (url: String, start: Int, end: Int)?
    let lang: String
    var retweetOf: SampleTweet?
    var quoteOf: SampleTweet?
    let metrics: (retweets: Int, likes: Int, replies: Int, quotes: Int)

    init(id: UInt64, date: Date, author: Int, text: SampleText, media: [SampleMedia],
         mediaLink: (url: String, start: Int, end: Int)?, lang: String,
         metrics: (retweets: Int, likes: Int, replies: Int, quotes: Int)) {
        self.id = id
        self.date = date
        self.author = author
        self.text = text
        self.media = media
        self.mediaLink = mediaLink
        self.lang = lang
        self.metrics = metrics
    }
}

private struct SampleGenerator {
    typealias JSON = [String: Any]

    private var random: SplitMix64
    private var users: [SampleUser] = []
    private var assets: [SampleAsset] = []
    private var assetKeys: Set<String> = []
    private var usedNames: Set<String> = []
    private var photoSizes: [(width: Int, height: Int)] = []

    private static let twitterEpochMillis: UInt64 = 1_288_834_974_657
    private static let alphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    private static let base64URL = alphanumerics + ["-", "_"]
    private static let lowercaseAlphanumerics = Array("abcdefghijklmnopqrstuvwxyz0123456789")

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    /// What one slot of a results page holds.
    private enum Slot {
        case photos(Int)
        case video
        case gif
        case retweet
        case quote
    }

    mutating func make() -> SampleResults {
        users = Self.people.map { makeUser($0) }

        // Photo counts per ordinary tweet are fixed so every seed has the same mix; the
        // seed decides the order, authors, texts, names and sizes.
        let v1Counts = Self.counts([0: 14, 1: 8, 2: 3, 3: 2, 4: 1])
        let v2Counts = Self.counts([0: 15, 1: 8, 2: 2, 3: 2, 4: 1])
        photoSizes = makePhotoSizes(count: v1Counts.reduce(0, +) + v2Counts.reduce(0, +) + 2 + 1)

        let end = SampleResults.referenceDate
        // Older tweets the retweet and the quote point at, with media of their own.
        let original = makeTweet(date: end.addingTimeInterval(-9 * 86_400 - 3_600), author: 3, photos: 2)
        let quoted = makeTweet(date: end.addingTimeInterval(-8 * 86_400 - 7_200), author: 10, photos: 1)

        let v1 = makePage(slots: v1Counts.map(Slot.photos) + [.video], special: .retweet, authorOffset: 0,
                          end: end, original: original)
        let v2 = makePage(slots: v2Counts.map(Slot.photos) + [.gif], special: .quote, authorOffset: 6,
                          end: end.addingTimeInterval(-1_800), original: quoted)
        let nextToken = random.string(28, from: Self.lowercaseAlphanumerics)

        return SampleResults(
            v1Search: encode(v1Page(v1)),
            v2Search: encode(v2Page(v2, nextToken: nextToken)),
            assets: assets
        )
    }

    /// One page: the slots shuffled, `special` (the retweet or quote of `original`)
    /// placed sixth, dated newest first with snowflake ids to match.
    private mutating func makePage(
        slots: [Slot], special: Slot, authorOffset: Int, end: Date, original: SampleTweet
    ) -> [SampleTweet] {
        var slots = slots
        random.shuffle(&slots)
        slots.insert(special, at: min(5, slots.count))
        let dates = spreadDates(count: slots.count, before: end)
        return zip(slots, dates).enumerated().map { index, pair in
            let (slot, date) = pair
            // Every user appears early on; later authors are random, so avatars repeat.
            var author = index < users.count ? (index + authorOffset) % users.count : random.below(users.count)
            switch slot {
            case .photos(let count):
                return makeTweet(date: date, author: author, photos: count)
            case .video:
                return makeTweet(date: date, author: author, photos: 0, video: true)
            case .gif:
                return makeTweet(date: date, author: author, photos: 0, gif: true)
            case .retweet:
                if author == original.author { author = (author + 1) % users.count }
                return makeRetweet(of: original, by: author, date: date)
            case .quote:
                if author == original.author { author = (author + 1) % users.count }
                return makeQuote(of: original, by: author, date: date)
            }
        }
    }

    // MARK: Building blocks

    private static func counts(_ spec: [Int: Int]) -> [Int] {
        spec.sorted { $0.key < $1.key }.flatMap { Array(repeating: $0.key, count: $0.value) }
    }

    private mutating func makePhotoSizes(count: Int) -> [(width: Int, height: Int)] {
        let common = [(1200, 675), (1600, 900), (2048, 1536), (1080, 1350), (2048, 2048)]
        var sizes = (0..<max(0, count - 4)).map { common[$0 % common.count] }
        sizes += Array(repeating: (4096, 3072), count: min(4, count))
        random.shuffle(&sizes)
        return sizes.map { (width: $0.0, height: $0.1) }
    }

    /// `count` instants in the six days before `end`, newest first.
    private mutating func spreadDates(count: Int, before end: Date) -> [Date] {
        let span = 6 * 86_400
        let offsets = (0..<count).map { _ in 120 + random.below(span) }.sorted()
        return offsets.map { end.addingTimeInterval(-TimeInterval($0)) }
    }

    private mutating func snowflake(_ date: Date) -> UInt64 {
        let millis = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        let sinceEpoch = millis > Self.twitterEpochMillis ? millis - Self.twitterEpochMillis : 0
        return (sinceEpoch << 22) | (random.next() & 0x3F_FFFF)
    }

    /// A fresh random name that no other URL of the sample uses as its key.
    private mutating func uniqueName(_ length: Int, alphabet: [Character], prefix: String = "") -> String {
        while true {
            let name = prefix + random.string(length - prefix.count, from: alphabet)
            let clashes = ["_normal", "_400x400", "_bigger", "_mini"].contains { name.hasSuffix($0) }
            if !clashes, usedNames.insert(name).inserted { return name }
        }
    }

    private mutating func addAsset(_ url: String, _ kind: SampleAsset.Kind, _ width: Int, _ height: Int) {
        guard let key = SampleAsset.key(forURL: url), assetKeys.insert(key).inserted else { return }
        assets.append(SampleAsset(key: key, kind: kind, width: width, height: height, seed: random.next()))
    }

    private mutating func makeUser(_ person: (screenName: String, name: String, bio: String)) -> SampleUser {
        let id = 100_000_000 + random.next() % 1_600_000_000_000_000_000
        let folder = 1_500_000_000_000_000_000 + random.next() % 200_000_000_000_000_000
        let file = uniqueName(8, alphabet: Self.base64URL)
        let avatar = "https://pbs.twimg.com/profile_images/\(folder)/\(file)_normal.jpg"
        addAsset(avatar, .avatar, 400, 400)
        let joined = Date(timeIntervalSince1970: 1_230_000_000 + TimeInterval(random.below(420_000_000)))
        return SampleUser(id: id, screenName: person.screenName, name: person.name, bio: person.bio,
                          avatarURL: avatar, createdAt: joined, followers: 40 + random.below(60_000))
    }

    private mutating func makeTweet(date: Date, author: Int, photos: Int, video: Bool = false, gif: Bool = false) -> SampleTweet {
        let template = video ? Self.videoTemplate : gif ? Self.gifTemplate : random.pick(Self.templates)
        var text = SampleText()
        for segment in template.segments {
            switch segment {
            case .text(let plain):
                text.append(plain)
            case .hashtag(let tag):
                text.entity(.hashtag(tag), text: "#" + tag)
            case .mention:
                var other = random.below(users.count)
                if other == author { other = (other + 1) % users.count }
                text.entity(.mention(other), text: "@" + users[other].screenName)
            case .link(let expanded, let display):
                let link = tco()
                text.entity(.link(url: link, expanded: expanded, display: display), text: link)
            }
        }

        var media: [SampleMedia] = []
        for _ in 0..<photos {
            let size = photoSizes.isEmpty ? (width: 1200, height: 675) : photoSizes.removeFirst()
            let name = uniqueName(15, alphabet: Self.base64URL, prefix: "G")
            let url = "https://pbs.twimg.com/media/\(name).jpg"
            addAsset(url, .photo, size.width, size.height)
            let alt = random.below(3) == 0 ? random.pick(Self.altTexts) : nil
            media.append(.photo(id: snowflake(date.addingTimeInterval(-5)), name: name, width: size.width, height: size.height, altText: alt))
        }
        if video {
            let id = snowflake(date.addingTimeInterval(-5))
            let poster = uniqueName(16, alphabet: Self.base64URL)
            addAsset("https://pbs.twimg.com/ext_tw_video_thumb/\(id)/pu/img/\(poster).jpg", .poster, 1280, 720)
            let variants = [(2_176_000, 1280, 720), (832_000, 640, 360), (256_000, 480, 270)].map { rate, w, h in
                (bitrate: rate, width: w, height: h, name: uniqueName(16, alphabet: Self.base64URL))
            }
            for variant in variants {
                addAsset(videoURL(id: id, variant), .video, variant.width, variant.height)
            }
            media.append(.video(id: id, poster: poster, variants: variants, playlist: uniqueName(16, alphabet: Self.base64URL)))
        }
        if gif {
            let poster = uniqueName(15, alphabet: Self.base64URL, prefix: "G")
            let mp4 = uniqueName(15, alphabet: Self.base64URL, prefix: "G")
            addAsset("https://pbs.twimg.com/tweet_video_thumb/\(poster).jpg", .poster, 1280, 720)
            addAsset("https://video.twimg.com/tweet_video/\(mp4).mp4", .video, 498, 280)
            media.append(.gif(id: snowflake(date.addingTimeInterval(-5)), poster: poster, mp4: mp4, width: 498, height: 280))
        }

        var mediaLink: (url: String, start: Int, end: Int)?
        if !media.isEmpty {
            text.append(" ")
            let link = tco()
            let start = text.count
            text.append(link)
            mediaLink = (link, start, text.count)
        }
        let metrics = (retweets: random.below(40), likes: random.below(400), replies: random.below(12), quotes: random.below(4))
        return SampleTweet(id: snowflake(date), date: date, author: author, text: text, media: media,
                           mediaLink: mediaLink, lang: template.lang, metrics: metrics)
    }

    private mutating func tco() -> String {
        "https://t.co/" + random.string(10, from: Self.alphanumerics)
    }

    private func videoURL(id: UInt64, _ variant: (bitrate: Int, width: Int, height: Int, name: String)) -> String {
        "https://video.twimg.com/ext_tw_video/\(id)/pu/vid/\(variant.width)x\(variant.height)/\(variant.name).mp4?tag=12"
    }

    private mutating func makeRetweet(of original: SampleTweet, by author: Int, date: Date) -> SampleTweet {
        var text = SampleText()
        text.append("RT ")
        text.entity(.mention(original.author), text: "@" + users[original.author].screenName)
        text.append(": ")
        let shift = text.count
        text.append(Self.plain(original.text.escaped))
        for entity in original.text.entities {
            text.adopt(entity, shiftedBy: shift)
        }
        let link = original.mediaLink.map { (url: $0.url, start: $0.start + shift, end: $0.end + shift) }
        let tweet = SampleTweet(id: snowflake(date), date: date, author: author, text: text, media: original.media,
                                mediaLink: link, lang: original.lang, metrics: (0, 0, 0, 0))
        tweet.retweetOf = original
        return tweet
    }

    private mutating func makeQuote(of quoted: SampleTweet, by author: Int, date: Date) -> SampleTweet {
        var text = SampleText()
        text.append("This brings back memories ☘️ ")
        text.entity(.hashtag("ucd"), text: "#ucd")
        text.append(" ")
        let permalink = "https://twitter.com/\(users[quoted.author].screenName)/status/\(quoted.id)"
        let link = tco()
        text.entity(.link(url: link, expanded: permalink, display: "twitter.com/\(users[quoted.author].screenName)/…"),
                    text: link)
        let tweet = SampleTweet(id: snowflake(date), date: date, author: author, text: text, media: [],
                                mediaLink: nil, lang: "en", metrics: (1, 25, 2, 0))
        tweet.quoteOf = quoted
        return tweet
    }

    /// Undoes `SampleText`'s escaping, to re-append served text to another tweet.
    private static func plain(_ escaped: String) -> String {
        escaped.replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    // MARK: Encoding

    private func encode(_ object: JSON) -> Data {
        // Sorted keys: dictionary order is not stable across runs, the sample must be.
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    private func v1Page(_ tweets: [SampleTweet]) -> JSON {
        let ids = tweets.map(\.id)
        let maxID = ids.max() ?? 0
        let minID = ids.min() ?? 1
        return [
            "statuses": tweets.map { v1Tweet($0) },
            "search_metadata": [
                "completed_in": 0.042,
                "max_id": maxID, "max_id_str": String(maxID),
                "next_results": "?max_id=\(minID - 1)&q=%23ucd&count=\(tweets.count)&include_entities=1&result_type=recent",
                "query": "%23ucd",
                "refresh_url": "?since_id=\(maxID)&q=%23ucd&result_type=recent&include_entities=1",
                "count": tweets.count,
                "since_id": 0, "since_id_str": "0",
            ] as JSON,
        ]
    }

    private func v1Tweet(_ tweet: SampleTweet) -> JSON {
        var entities: JSON = [
            "hashtags": tweet.text.entities.compactMap { entity -> JSON? in
                guard case .hashtag(let tag) = entity.kind else { return nil }
                return ["text": tag, "indices": [entity.start, entity.end]]
            },
            "symbols": [] as [JSON],
            "user_mentions": tweet.text.entities.compactMap { entity -> JSON? in
                guard case .mention(let index) = entity.kind else { return nil }
                let user = users[index]
                return ["screen_name": user.screenName, "name": user.name, "id": user.id, "id_str": String(user.id),
                        "indices": [entity.start, entity.end]]
            },
            "urls": tweet.text.entities.compactMap { entity -> JSON? in
                guard case .link(let url, let expanded, let display) = entity.kind else { return nil }
                return ["url": url, "expanded_url": expanded, "display_url": display, "indices": [entity.start, entity.end]]
            },
        ]
        var json: JSON = [
            "created_at": Self.v1Date(tweet.date),
            "id": tweet.id, "id_str": String(tweet.id),
            "full_text": tweet.text.escaped,
            "truncated": false,
            "display_text_range": [0, tweet.mediaLink.map { $0.start - 1 } ?? tweet.text.count],
            "metadata": ["iso_language_code": tweet.lang, "result_type": "recent"],
            "source": "<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Twitter Web App</a>",
            "in_reply_to_status_id": NSNull(), "in_reply_to_status_id_str": NSNull(),
            "in_reply_to_user_id": NSNull(), "in_reply_to_user_id_str": NSNull(), "in_reply_to_screen_name": NSNull(),
            "user": v1User(users[tweet.author]),
            "geo": NSNull(), "coordinates": NSNull(), "place": NSNull(), "contributors": NSNull(),
            "is_quote_status": tweet.quoteOf != nil,
            "retweet_count": tweet.retweetOf.map { $0.metrics.retweets } ?? tweet.metrics.retweets,
            "favorite_count": tweet.metrics.likes,
            "favorited": false, "retweeted": false,
            "lang": tweet.lang,
        ]
        if !tweet.media.isEmpty, let link = tweet.mediaLink {
            let items = tweet.media.enumerated().map { index, item in
                v1Media(item, link: link, permalink: permalink(tweet.retweetOf ?? tweet, item, index))
            }
            entities["media"] = [items[0]]
            json["extended_entities"] = ["media": items]
            json["possibly_sensitive"] = false
        }
        json["entities"] = entities
        if let original = tweet.retweetOf {
            json["retweeted_status"] = v1Tweet(original)
        }
        if let quoted = tweet.quoteOf {
            json["quoted_status"] = v1Tweet(quoted)
            json["quoted_status_id"] = quoted.id
            json["quoted_status_id_str"] = String(quoted.id)
        }
        return json
    }

    private func permalink(_ tweet: SampleTweet, _ item: SampleMedia, _ index: Int) -> String {
        "https://twitter.com/\(users[tweet.author].screenName)/status/\(tweet.id)/\(item.pathKind)/\(index + 1)"
    }

    private func v1Media(_ item: SampleMedia, link: (url: String, start: Int, end: Int), permalink: String) -> JSON {
        var json: JSON = [
            "id": item.id, "id_str": String(item.id),
            "indices": [link.start, link.end],
            "url": link.url,
            "display_url": "pic.twitter.com/" + link.url.dropFirst("https://t.co/".count),
            "expanded_url": permalink,
        ]
        let still: String
        let size: (Int, Int)
        switch item {
        case .photo(_, let name, let width, let height, let alt):
            still = "https://pbs.twimg.com/media/\(name).jpg"
            size = (width, height)
            json["type"] = "photo"
            if let alt { json["ext_alt_text"] = alt }
        case .video(let id, let poster, let variants, let playlist):
            still = "https://pbs.twimg.com/ext_tw_video_thumb/\(id)/pu/img/\(poster).jpg"
            size = (1280, 720)
            json["type"] = "video"
            json["video_info"] = [
                "aspect_ratio": [16, 9],
                "duration_millis": 14_533,
                "variants": [[
                    "content_type": "application/x-mpegURL",
                    "url": "https://video.twimg.com/ext_tw_video/\(id)/pu/pl/\(playlist).m3u8?tag=12&container=fmp4",
                ] as JSON] + variants.map { variant -> JSON in
                    ["bitrate": variant.bitrate, "content_type": "video/mp4", "url": videoURL(id: id, variant)]
                },
            ] as JSON
        case .gif(_, let poster, let mp4, let width, let height):
            still = "https://pbs.twimg.com/tweet_video_thumb/\(poster).jpg"
            size = (width, height)
            json["type"] = "animated_gif"
            json["video_info"] = [
                "aspect_ratio": [249, 140],
                "variants": [["bitrate": 0, "content_type": "video/mp4", "url": "https://video.twimg.com/tweet_video/\(mp4).mp4"] as JSON],
            ] as JSON
        }
        json["media_url"] = "http://" + still.dropFirst("https://".count)
        json["media_url_https"] = still
        json["original_info"] = ["width": size.0, "height": size.1]
        json["sizes"] = Self.v1Sizes(width: size.0, height: size.1)
        return json
    }

    /// The renditions v1.1 lists: `fit` scales within a box, `thumb` crops to 150x150.
    private static func v1Sizes(width: Int, height: Int) -> JSON {
        func fit(_ box: Int) -> JSON {
            let scale = min(1.0, Double(box) / Double(max(width, height)))
            return ["w": Int((Double(width) * scale).rounded()), "h": Int((Double(height) * scale).rounded()), "resize": "fit"]
        }
        return ["thumb": ["w": 150, "h": 150, "resize": "crop"] as JSON, "small": fit(680), "medium": fit(1200), "large": fit(2048)]
    }

    private func v1User(_ user: SampleUser) -> JSON {
        [
            "id": user.id, "id_str": String(user.id),
            "name": user.name, "screen_name": user.screenName,
            "location": "Dublin, Ireland", "description": user.bio, "url": NSNull(),
            "entities": ["description": ["urls": [] as [JSON]]],
            "protected": false,
            "followers_count": user.followers, "friends_count": user.followers / 7 + 30, "listed_count": user.followers / 90,
            "created_at": Self.v1Date(user.createdAt),
            "favourites_count": user.followers / 3, "statuses_count": user.followers / 2 + 100,
            "verified": false, "lang": NSNull(),
            "profile_image_url": "http://" + user.avatarURL.dropFirst("https://".count),
            "profile_image_url_https": user.avatarURL,
            "default_profile": false, "default_profile_image": false,
        ]
    }

    private func v2Page(_ tweets: [SampleTweet], nextToken: String) -> JSON {
        let quoted = tweets.compactMap(\.quoteOf)
        let everyone = tweets + quoted
        var userIndexes: [Int] = []
        for tweet in everyone {
            for index in [tweet.author] + tweet.text.entities.compactMap({ entity -> Int? in
                if case .mention(let index) = entity.kind { return index }
                return nil
            }) where !userIndexes.contains(index) {
                userIndexes.append(index)
            }
        }
        let ids = tweets.map(\.id)
        return [
            "data": tweets.map { v2Tweet($0) },
            "includes": [
                "media": everyone.flatMap { $0.media.map { v2Media($0) } },
                "users": userIndexes.map { v2User(users[$0]) },
                "tweets": quoted.map { v2Tweet($0) },
            ] as JSON,
            "meta": [
                "newest_id": String(ids.max() ?? 0),
                "oldest_id": String(ids.min() ?? 0),
                "result_count": tweets.count,
                "next_token": nextToken,
            ] as JSON,
        ]
    }

    private func v2Tweet(_ tweet: SampleTweet) -> JSON {
        var urls = tweet.text.entities.compactMap { entity -> JSON? in
            guard case .link(let url, let expanded, let display) = entity.kind else { return nil }
            return ["start": entity.start, "end": entity.end, "url": url, "expanded_url": expanded, "display_url": display]
        }
        if let link = tweet.mediaLink {
            for (index, item) in tweet.media.enumerated() {
                urls.append([
                    "start": link.start, "end": link.end, "url": link.url,
                    "expanded_url": permalink(tweet, item, index),
                    "display_url": "pic.twitter.com/" + link.url.dropFirst("https://t.co/".count),
                    "media_key": item.mediaKey,
                ])
            }
        }
        var entities: JSON = [:]
        let hashtags = tweet.text.entities.compactMap { entity -> JSON? in
            guard case .hashtag(let tag) = entity.kind else { return nil }
            return ["start": entity.start, "end": entity.end, "tag": tag]
        }
        let mentions = tweet.text.entities.compactMap { entity -> JSON? in
            guard case .mention(let index) = entity.kind else { return nil }
            return ["start": entity.start, "end": entity.end, "username": users[index].screenName, "id": String(users[index].id)]
        }
        if !hashtags.isEmpty { entities["hashtags"] = hashtags }
        if !mentions.isEmpty { entities["mentions"] = mentions }
        if !urls.isEmpty { entities["urls"] = urls }

        var json: JSON = [
            "id": String(tweet.id),
            "text": tweet.text.escaped,
            "author_id": String(users[tweet.author].id),
            "created_at": Self.isoDate(tweet.date),
            "conversation_id": String(tweet.id),
            "edit_history_tweet_ids": [String(tweet.id)],
            "lang": tweet.lang,
            "possibly_sensitive": false,
            "reply_settings": "everyone",
            "public_metrics": [
                "retweet_count": tweet.metrics.retweets, "reply_count": tweet.metrics.replies,
                "like_count": tweet.metrics.likes, "quote_count": tweet.metrics.quotes,
                "bookmark_count": tweet.metrics.likes / 20, "impression_count": tweet.metrics.likes * 37 + 120,
            ],
        ]
        if !entities.isEmpty { json["entities"] = entities }
        if !tweet.media.isEmpty { json["attachments"] = ["media_keys": tweet.media.map(\.mediaKey)] }
        if let quoted = tweet.quoteOf {
            json["referenced_tweets"] = [["type": "quoted", "id": String(quoted.id)]]
        }
        return json
    }

    private func v2Media(_ item: SampleMedia) -> JSON {
        switch item {
        case .photo(_, let name, let width, let height, let alt):
            var json: JSON = ["media_key": item.mediaKey, "type": "photo", "url": "https://pbs.twimg.com/media/\(name).jpg",
                              "width": width, "height": height]
            if let alt { json["alt_text"] = alt }
            return json
        case .video(let id, let poster, let variants, let playlist):
            return [
                "media_key": item.mediaKey, "type": "video", "width": 1280, "height": 720, "duration_ms": 14_533,
                "preview_image_url": "https://pbs.twimg.com/ext_tw_video_thumb/\(id)/pu/img/\(poster).jpg",
                "variants": [[
                    "content_type": "application/x-mpegURL",
                    "url": "https://video.twimg.com/ext_tw_video/\(id)/pu/pl/\(playlist).m3u8?tag=12&container=fmp4",
                ] as JSON] + variants.map { variant -> JSON in
                    ["bit_rate": variant.bitrate, "content_type": "video/mp4", "url": videoURL(id: id, variant)]
                },
            ]
        case .gif(_, let poster, let mp4, let width, let height):
            return [
                "media_key": item.mediaKey, "type": "animated_gif", "width": width, "height": height,
                "preview_image_url": "https://pbs.twimg.com/tweet_video_thumb/\(poster).jpg",
                "variants": [["bit_rate": 0, "content_type": "video/mp4", "url": "https://video.twimg.com/tweet_video/\(mp4).mp4"] as JSON],
            ]
        }
    }

    private func v2User(_ user: SampleUser) -> JSON {
        [
            "id": String(user.id), "username": user.screenName, "name": user.name,
            "profile_image_url": user.avatarURL,
            "created_at": Self.isoDate(user.createdAt),
            "description": user.bio, "verified": false, "protected": false,
            "public_metrics": ["followers_count": user.followers, "following_count": user.followers / 7 + 30,
                               "tweet_count": user.followers / 2 + 100, "listed_count": user.followers / 90],
        ]
    }

    // MARK: Dates

    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]   // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Wed Oct 10 20:19:24 +0000 2018`, computed (not formatted) so no locale can leak in.
    static func v1Date(_ date: Date) -> String {
        let parts = civil(date)
        return "\(weekdays[parts.weekday]) \(months[parts.month - 1]) \(pad(parts.day)) "
            + "\(pad(parts.hour)):\(pad(parts.minute)):\(pad(parts.second)) +0000 \(parts.year)"
    }

    /// `2021-09-22T16:38:16.000Z`.
    static func isoDate(_ date: Date) -> String {
        let parts = civil(date)
        return "\(parts.year)-\(pad(parts.month))-\(pad(parts.day))T\(pad(parts.hour)):\(pad(parts.minute)):\(pad(parts.second)).000Z"
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// UTC calendar fields (Howard Hinnant's civil-from-days).
    private static func civil(_ date: Date) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, weekday: Int) {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = ((days % 7) + 7) % 7
        return (year, month, day, secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60, weekday)
    }
}

// MARK: - Content

/// A tweet text recipe and the language the API would detect for it.
private struct Template {
    let segments: [Segment]
    let lang: String

    init(lang: String = "en", _ segments: Segment...) {
        self.segments = segments
        self.lang = lang
    }
}

extension SampleGenerator {
    /// The sample's authors: a university, its units and people around its campus.
    fileprivate static let people: [(screenName: String, name: String, bio: String)] = [
        ("ucddublin", "University College Dublin", "Ireland's global university 🇮🇪 Belfield, Dublin 4."),
        ("ucdlibrary", "UCD Library", "Books, archives, study spaces & help. Open late in exam season 📚"),
        ("ucdscience", "UCD Science", "News from the O'Brien Centre for Science 🔬"),
        ("belfield_birds", "Belfield Birds", "Herons, egrets & the odd kingfisher on campus 🪶"),
        ("aoife_codes", "Aoife Ní Bhriain", "PhD student, computer science. Coffee > sleep ☕"),
        ("liffeyrunner", "Ciarán Walsh", "Running Dublin one bridge at a time 🏃"),
        ("quadphotos", "The Quad in Pictures", "Photos of campus life, every day 📷"),
        ("dublinbay_daily", "Dublin Bay Daily", "Sunrise, sea and sky over Dublin Bay 🌊"),
        ("niamh_writes", "Niamh Byrne", "English & Drama. Words, mostly ✍️"),
        ("ucdarchives", "UCD Archives", "Letters, photographs and papers from Ireland's past 🗂️"),
        ("sean_photog", "Seán Ó Murchú", "Photographer. Dublin ↔ Galway."),
        ("ucd_sport", "UCD Sport", "Clubs, fixtures & results 🏉⚽🏑"),
    ]

    fileprivate static let altTexts = [
        "The lake at Belfield at sunrise, mist over the water",
        "Students on the steps of the Newman Building",
        "A grey heron standing in the shallows",
        "Cherry blossom along the path to the library",
        "Rugby players contesting a lineout in the rain",
    ]

    fileprivate static let templates: [Template] = [
        Template(.text("Spring light over the lake at Belfield this morning ☀️ "), .hashtag("ucd"), .text(" "), .hashtag("Belfield")),
        Template(.text("Library open until midnight all week for exams 📚 good luck, everyone! "), .hashtag("ucd"), .text(" "), .mention),
        Template(.text("New paper from our lab on coastal erosion in Dublin Bay 🌊 "),
                 .link(expanded: "https://www.ucd.ie/research/news/coastal-erosion-2024/", display: "ucd.ie/research/news/…"),
                 .text(" "), .hashtag("ucd"), .text(" "), .hashtag("OpenScience")),
        Template(lang: "ga", .text("Seachtain na Gaeilge ar an gcampas! 🇮🇪 "), .hashtag("ucd"), .text(" "), .hashtag("SnaG24")),
        Template(.text("Caife & cáca in the Old Common Room ☕🍰 thanks "), .mention, .text(" "), .hashtag("ucd")),
        Template(.text("Graduation day 👩‍🎓👨‍🎓 congratulations to the class of 2024, from all of us at "), .mention, .text("! "),
                 .hashtag("ucd"), .text(" "), .hashtag("UCDGrad")),
        Template(.mention, .text(" the herons are back by the pond 🪶 "), .hashtag("ucd"), .text(" "), .hashtag("birdwatching")),
        Template(.text("Rugby at the Bowl tonight 🏉 UCD v Trinity, 7pm "), .hashtag("ucd"), .text(" "), .hashtag("ColoursMatch")),
        Template(.text("👩‍👩‍👧 Family day on campus: face painting, a bouncy castle & tours of the O'Brien Centre "), .hashtag("ucd")),
        Template(.text("Sunset from the Science Centre roof 🌅 "), .hashtag("ucd"), .text(" "), .hashtag("Dublin")),
        Template(.text("Reminder: essays < 3000 words, due Friday 17:00 ⏰ "), .hashtag("ucd"), .text(" "), .mention),
        Template(.text("Frost on the lake 🥶❄️ "), .hashtag("ucd"), .text(" "), .hashtag("winter")),
        Template(.text("Cherry blossom season 🌸 on the Belfield campus "), .hashtag("ucd"), .text(" cc "), .mention),
        Template(.text("Open day Saturday, tours every 30 min from the Global Lounge 🗺️ "),
                 .link(expanded: "https://www.ucd.ie/openday/", display: "ucd.ie/openday"),
                 .text(" "), .hashtag("ucd"), .text(" "), .hashtag("UCDOpenDay")),
        Template(.text("From the archive: the Belfield site in 1964 🗂️ "), .hashtag("ucd"), .text(" "), .hashtag("OnThisDay")),
        Template(.text("5k around the campus loop before lectures 🏃‍♀️ who's in tomorrow? "), .hashtag("ucd"), .text(" "), .mention),
        Template(.text("Cafe\u{301} society: the new espresso bar in the Student Centre is open ☕ "), .hashtag("ucd")),
        Template(.text("Night sky over the observatory 🔭✨ "),
                 .link(expanded: "https://www.ucd.ie/physics/news/first-light/", display: "ucd.ie/physics/news/…"),
                 .text(" "), .hashtag("ucd"), .text(" "), .hashtag("astronomy")),
    ]

    fileprivate static let videoTemplate = Template(
        .text("Watch: a minute in the life of the campus, from sunrise to the last bus 🎬 "), .hashtag("ucd"), .text(" "), .mention
    )

    fileprivate static let gifTemplate = Template(
        .text("When the library extends opening hours again 🎉 "), .hashtag("ucd")
    )
}

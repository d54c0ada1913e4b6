import Foundation

/// Turns v2 wire tweets into ``Tweet``s, resolving authors and media through the
/// response's `includes` the way the API intends.
struct V2Converter {
    private var log: ConversionLog
    var problems: [ParseProblem] { log.problems }
    private let users: [String: V2WireUser]
    private let media: [String: V2WireMedia]

    init(source: String, locationPrefix: String, includes: V2WireIncludes?) {
        log = ConversionLog(source: source, locationPrefix: locationPrefix)
        var users: [String: V2WireUser] = [:]
        for user in includes?.users?.values ?? [] where users[user.id] == nil { users[user.id] = user }
        var media: [String: V2WireMedia] = [:]
        for item in includes?.media?.values ?? [] where media[item.media_key] == nil { media[item.media_key] = item }
        self.users = users
        self.media = media
        for failure in includes?.users?.failures ?? [] { report("includes.users[\(failure.index)]", failure.reason) }
        for failure in includes?.media?.failures ?? [] { report("includes.media[\(failure.index)]", failure.reason) }
    }

    /// Converts a tweet array, reporting bad elements as `key[i]`.
    ///
    /// `strictMedia` reports media keys missing from `includes`: expected for results,
    /// but the API never expands media of *included* tweets, so there it is normal.
    mutating func convert(_ list: LossyArray<V2WireTweet>?, key: String, strictMedia: Bool) -> [Tweet] {
        guard let list else { return [] }
        var tweets: [Tweet] = []
        for entry in list.inDocumentOrder(key: key) {
            switch entry {
            case let .failure(location, reason): log.report(location, reason)
            case let .element(wire, location): tweets.append(convert(wire, at: location, strictMedia: strictMedia))
            }
        }
        return tweets
    }

    mutating func convert(_ wire: V2WireTweet, at location: String, strictMedia: Bool) -> Tweet {
        let note = wire.note_tweet
        let text = EscapedText(escaped: note?.text ?? wire.text)
        let wireEntities = note != nil ? note?.entities : wire.entities
        return Tweet(
            id: wire.id,
            createdAt: wire.created_at.flatMap(TwitterDate.parse),
            text: text.text,
            author: author(of: wire),
            entities: Self.entities(wireEntities, in: text),
            media: resolveMedia(of: wire, at: location, strict: strictMedia),
            references: Self.references(wire),
            lang: wire.lang,
            sensitive: wire.possibly_sensitive?.decoded ?? false
        )
    }

    /// Problems the API itself reported in `errors`.
    mutating func reportAPIErrors(_ errors: LossyArray<V2WireError>?) {
        for (index, error) in errors?.elements ?? [] { report("errors[\(index)]", Self.describe(error)) }
    }

    static func describe(_ error: V2WireError) -> String {
        let parts = [error.title, error.detail ?? error.message].compactMap(nonEmpty)
        let text = parts.isEmpty ? "unspecified error" : parts.joined(separator: ": ")
        return "the API reported: " + text.replacingOccurrences(of: "\n", with: " ")
    }

    private mutating func report(_ location: String, _ message: String) {
        log.report(location, message)
    }

    private func author(of wire: V2WireTweet) -> Author {
        let id = wire.author_id ?? wire.author?.id ?? ""
        let user = users[id] ?? wire.author
        return Author(
            id: id,
            screenName: user?.username ?? "",
            name: user?.name ?? "",
            profileImageURL: nonEmpty(user?.profile_image_url)
        )
    }

    private mutating func resolveMedia(of wire: V2WireTweet, at location: String, strict: Bool) -> [MediaItem] {
        var inline: [String: V2WireMedia] = [:]
        for item in wire.attachments?.media?.values ?? [] { inline[item.media_key] = item }
        let keys = wire.attachments?.media_keys ?? wire.attachments?.media?.values.map(\.media_key) ?? []
        var seen: Set<String> = []
        var result: [MediaItem] = []
        for key in keys where seen.insert(key).inserted {
            guard let item = media[key] ?? inline[key] else {
                if strict { report(location, "media \"\(key)\" is not in includes.media; it was skipped") }
                continue
            }
            guard let type = MediaKind(rawValue: item.type) else {
                if strict { report(location, "media \"\(key)\" has unknown type \"\(item.type)\"; it was skipped") }
                continue
            }
            let still = nonEmpty(type == .photo ? item.url : item.preview_image_url)
            let variants = (item.variants?.values ?? []).map {
                (bitrate: $0.bit_rate, contentType: $0.content_type, url: $0.url)
            }
            result.append(MediaItem(
                id: key,
                type: type,
                imageURL: type == .photo ? still.map(TwimgURL.original) : still,
                videoURL: type == .photo ? nil : VideoVariant.bestMP4(variants),
                width: item.width,
                height: item.height,
                altText: nonEmpty(item.alt_text),
                sourceURL: still
            ))
        }
        return result
    }

    private static func entities(_ wire: V2WireEntities?, in text: EscapedText) -> Entities {
        var result = Entities()
        for tag in wire?.hashtags?.values ?? [] {
            if let range = text.range(start: tag.start, end: tag.end) { result.hashtags.append(Hashtag(range: range, tag: tag.tag)) }
        }
        for tag in wire?.cashtags?.values ?? [] {
            if let range = text.range(start: tag.start, end: tag.end) { result.cashtags.append(Cashtag(range: range, tag: tag.tag)) }
        }
        for mention in wire?.mentions?.values ?? [] {
            if let range = text.range(start: mention.start, end: mention.end) {
                result.mentions.append(Mention(range: range, username: mention.username, id: nonEmpty(mention.id)))
            }
        }
        for link in wire?.urls?.values ?? [] {
            if let range = text.range(start: link.start, end: link.end) {
                result.urls.append(URLEntity(range: range, url: link.url, expandedURL: link.expanded_url, displayURL: link.display_url))
            }
        }
        return result
    }

    private static func references(_ wire: V2WireTweet) -> [TweetReference] {
        (wire.referenced_tweets?.values ?? []).compactMap { reference in
            TweetReference.Kind(rawValue: reference.type).map { TweetReference(kind: $0, id: reference.id) }
        }
    }
}

import Foundation

/// Turns v1.1 wire tweets into ``Tweet``s, collecting quoted and retweeted originals and
/// the problems met on the way.
struct V1Converter: PostConverter {
    var log: ConversionLog

    /// Retweets of quotes of retweets… are rare past two levels; the cap bounds work on
    /// hostile input.
    private static let maxNesting = 4

    init(source: String, locationPrefix: String) {
        log = ConversionLog(source: source, locationPrefix: locationPrefix)
    }

    /// Converts one tweet and its embedded originals; `nil` (with a problem) when unusable.
    mutating func convertReporting(_ wire: V1WireTweet, at location: String) -> Tweet? {
        switch Self.tweet(from: wire) {
        case .failure(let message):
            log.report(location, message)
            return nil
        case .success(let tweet):
            collectEmbedded(in: wire, at: location, depth: 1)
            return tweet
        }
    }

    private mutating func collectEmbedded(in wire: V1WireTweet, at location: String, depth: Int) {
        guard depth <= Self.maxNesting else { return }
        for (key, nested) in [("retweeted_status", wire.retweeted_status), ("quoted_status", wire.quoted_status)] {
            guard let nested else { continue }
            let nestedLocation = "\(location).\(key)"
            switch nested {
            case .failure(let message):
                log.report(nestedLocation, message)
            case .value(let inner):
                switch Self.tweet(from: inner) {
                case .failure(let message):
                    log.report(nestedLocation, message)
                case .success(let tweet):
                    log.include(tweet)
                    collectEmbedded(in: inner, at: nestedLocation, depth: depth + 1)
                }
            }
        }
    }

    // MARK: - One tweet

    private enum Outcome {
        case success(Tweet)
        case failure(String)
    }

    private static func tweet(from wire: V1WireTweet) -> Outcome {
        guard let id = nonEmpty(wire.id_str) ?? wire.id?.string else {
            return .failure("missing field \"id_str\" (and no numeric \"id\")")
        }
        // Compatibility mode puts the real text and entities under extended_tweet.
        let extended = wire.extended_tweet?.full_text == nil ? nil : wire.extended_tweet
        guard let rawText = extended?.full_text ?? wire.full_text ?? wire.text else {
            return .failure("missing field \"full_text\" or \"text\"")
        }
        let text = EscapedText(escaped: rawText)
        let wireEntities = extended != nil ? extended?.entities : wire.entities
        let extendedMedia = extended != nil ? extended?.extended_entities : wire.extended_entities
        let mediaList = extendedMedia?.media?.values ?? wireEntities?.media?.values ?? []

        return .success(Tweet(
            id: id,
            createdAt: wire.created_at.flatMap(TwitterDate.parse),
            text: text.text,
            author: author(wire.user),
            entities: entities(wireEntities, fallbackMedia: mediaList, in: text),
            media: media(mediaList),
            references: references(wire),
            lang: wire.lang,
            sensitive: wire.possibly_sensitive?.decoded ?? false
        ))
    }

    private static func author(_ user: V1WireUser?) -> Author {
        Author(
            id: nonEmpty(user?.id_str) ?? user?.id?.string ?? "",
            screenName: user?.screen_name ?? "",
            name: user?.name ?? "",
            profileImageURL: nonEmpty(user?.profile_image_url_https) ?? nonEmpty(user?.profile_image_url)
        )
    }

    private static func entities(_ wire: V1WireEntities?, fallbackMedia: [V1WireMedia], in text: EscapedText) -> Entities {
        var result = Entities()
        for tag in wire?.hashtags?.values ?? [] {
            if let range = text.range(tag.indices) { result.hashtags.append(Hashtag(range: range, tag: tag.text)) }
        }
        for tag in wire?.symbols?.values ?? [] {
            if let range = text.range(tag.indices) { result.cashtags.append(Cashtag(range: range, tag: tag.text)) }
        }
        for mention in wire?.user_mentions?.values ?? [] {
            if let range = text.range(mention.indices) {
                result.mentions.append(Mention(range: range, username: mention.screen_name, id: nonEmpty(mention.id_str)))
            }
        }
        for link in wire?.urls?.values ?? [] {
            if let range = text.range(link.indices) {
                result.urls.append(URLEntity(range: range, url: link.url, expandedURL: link.expanded_url, displayURL: link.display_url))
            }
        }
        // entities.media names the one t.co link; extended_entities repeats it per item.
        let mediaLinks = wire?.media?.values ?? fallbackMedia
        var seen: Set<TextRange> = []
        for item in mediaLinks {
            guard let id = nonEmpty(item.id_str) ?? item.id?.string,
                  let range = text.range(item.indices), seen.insert(range).inserted else { continue }
            result.media.append(MediaRange(range: range, mediaID: id))
        }
        return result
    }

    private static func media(_ list: [V1WireMedia]) -> [MediaItem] {
        var seen: Set<String> = []
        return list.compactMap { wire in
            guard let id = nonEmpty(wire.id_str) ?? wire.id?.string, seen.insert(id).inserted,
                  let type = wire.type.flatMap(MediaKind.init(rawValue:))
            else { return nil }
            let source = nonEmpty(wire.media_url_https) ?? nonEmpty(wire.media_url)
            let variants = (wire.video_info?.variants?.values ?? []).map {
                (bitrate: $0.bitrate, contentType: $0.content_type, url: $0.url)
            }
            return MediaItem(
                id: id,
                type: type,
                imageURL: type == .photo ? source.map(TwimgURL.original) : source,
                videoURL: type == .photo ? nil : VideoVariant.bestMP4(variants),
                width: wire.original_info?.width ?? wire.sizes?.large?.w,
                height: wire.original_info?.height ?? wire.sizes?.large?.h,
                altText: nonEmpty(wire.ext_alt_text),
                sourceURL: source
            )
        }
    }

    private static func references(_ wire: V1WireTweet) -> [TweetReference] {
        var result: [TweetReference] = []
        if let id = nonEmpty(wire.in_reply_to_status_id_str) {
            result.append(TweetReference(kind: .repliedTo, id: id))
        }
        if case .value(let quoted) = wire.quoted_status, let id = nonEmpty(quoted.id_str) ?? quoted.id?.string {
            result.append(TweetReference(kind: .quoted, id: id))
        } else if let id = nonEmpty(wire.quoted_status_id_str) {
            result.append(TweetReference(kind: .quoted, id: id))
        }
        if case .value(let original) = wire.retweeted_status, let id = nonEmpty(original.id_str) ?? original.id?.string {
            result.append(TweetReference(kind: .retweeted, id: id))
        }
        return result
    }
}

/// `nil` for `nil` and for the empty string, which the APIs use interchangeably.
func nonEmpty(_ text: String?) -> String? {
    guard let text, !text.isEmpty else { return nil }
    return text
}

import Foundation

/// Turns Mastodon statuses into ``Tweet``s: the HTML content into text with entity
/// ranges, attachments into media, reblogs and quotes into references with the
/// originals collected as included posts, and the problems met on the way.
struct MastodonConverter: PostConverter {
    var log: ConversionLog

    /// A reblog of a quote of a reblog… nests at most this deep on hostile input.
    private static let maxNesting = 4

    init(source: String, locationPrefix: String) {
        log = ConversionLog(source: source, locationPrefix: locationPrefix)
    }

    /// Converts one status and the statuses it reblogs or quotes; nil (with a problem) when unusable.
    mutating func convertReporting(_ wire: MastodonWireStatus, at location: String) -> Tweet? {
        convertReporting(wire, at: location, depth: 0)
    }

    private mutating func convertReporting(_ wire: MastodonWireStatus, at location: String, depth: Int) -> Tweet? {
        guard let id = wire.id?.string, !id.isEmpty else {
            log.report(location, "status has no \"id\"")
            return nil
        }
        guard depth < Self.maxNesting else { return nil }
        for (key, nested) in [("reblog", wire.reblog), ("quote.quoted_status", wire.quote?.quoted_status)] {
            switch nested {
            case .failure(let message)?:
                log.report("\(location).\(key)", message)
            case .value(let inner)?:
                if let post = convertReporting(inner, at: "\(location).\(key)", depth: depth + 1) { log.include(post) }
            case nil:
                break
            }
        }
        return Self.post(wire, id: id)
    }

    // MARK: - One status

    private static func post(_ wire: MastodonWireStatus, id: String) -> Tweet {
        let html = MastodonHTML(wire.content ?? "")
        var references: [TweetReference] = []
        if case .value(let original)? = wire.reblog, let originalID = original.id?.string {
            references.append(TweetReference(kind: .retweeted, id: originalID))
        }
        if case .value(let quoted)? = wire.quote?.quoted_status, let quotedID = quoted.id?.string {
            references.append(TweetReference(kind: .quoted, id: quotedID))
        }
        if let parent = wire.in_reply_to_id?.string {
            references.append(TweetReference(kind: .repliedTo, id: parent))
        }
        return Tweet(
            id: id,
            createdAt: wire.created_at.flatMap(TwitterDate.parse),
            text: html.text,
            author: author(wire.account),
            entities: entities(html.links, mentions: wire.mentions?.values ?? []),
            media: (wire.media_attachments?.values ?? []).compactMap(media),
            references: references,
            lang: nonEmpty(wire.language),
            network: .mastodon,
            url: nonEmpty(wire.url) ?? nonEmpty(wire.uri),
            sensitive: wire.sensitive ?? false,
            spoilerText: nonEmpty(wire.spoiler_text))
    }

    /// The still avatar (`avatar_static`) first: `avatar` may be an animation, and
    /// both are the full-size upload.
    private static func author(_ account: MastodonWireAccount?) -> Author {
        Author(
            id: account?.id?.string ?? "",
            screenName: nonEmpty(account?.acct) ?? account?.username ?? "",
            name: account?.display_name ?? "",
            profileImageURL: nonEmpty(account?.avatar_static) ?? nonEmpty(account?.avatar))
    }

    /// Hashtag and mention links of the content become entities (mentions named by
    /// the status's `mentions` list, which has the full `user@host`); other links
    /// become URLs with the text the reader sees.
    private static func entities(_ links: [MastodonHTML.Link], mentions: [MastodonWireMention]) -> Entities {
        var entities = Entities()
        var byURL: [String: MastodonWireMention] = [:]
        for mention in mentions { if let url = mention.url, byURL[url] == nil { byURL[url] = mention } }
        for link in links {
            if link.isHashtag {
                let tag = link.text.hasPrefix("#") ? String(link.text.dropFirst()) : link.text
                if !tag.isEmpty { entities.hashtags.append(Hashtag(range: link.range, tag: tag)) }
            } else if link.isMention {
                let known = link.href.flatMap { byURL[$0] }
                let shown = link.text.hasPrefix("@") ? String(link.text.dropFirst()) : link.text
                let name = nonEmpty(known?.acct) ?? shown
                if !name.isEmpty { entities.mentions.append(Mention(range: link.range, username: name, id: known?.id?.string)) }
            } else if let href = nonEmpty(link.href) {
                entities.urls.append(URLEntity(range: link.range, url: href, expandedURL: href, displayURL: link.text))
            }
        }
        return entities
    }

    /// Images are fetched at `url` (the server's copy), falling back to `remote_url`
    /// (the origin server's) when the copy is gone; videos and GIFs by their preview
    /// as the poster, their file only with videos; audio by its preview alone.
    private static func media(_ wire: MastodonWireAttachment) -> MediaItem? {
        guard let id = wire.id?.string else { return nil }
        let kind: MediaKind
        switch wire.type {
        case "image": kind = .photo
        case "gifv": kind = .animatedGIF
        case "video": kind = .video
        case "audio": kind = .audio
        default: return nil
        }
        let file = nonEmpty(wire.url) ?? nonEmpty(wire.remote_url)
        return MediaItem(
            id: id,
            type: kind,
            imageURL: kind == .photo ? file : nonEmpty(wire.preview_url),
            // Videos and GIFs are MP4 files; sound files (MP3, Ogg) are not fetched:
            // the fetcher keeps only images and MP4 video. Their preview, if any, is kept.
            videoURL: kind == .video || kind == .animatedGIF ? file : nil,
            width: wire.meta?.original?.width,
            height: wire.meta?.original?.height,
            altText: nonEmpty(wire.description),
            sourceURL: kind == .photo ? nonEmpty(wire.remote_url) : nil)
    }
}

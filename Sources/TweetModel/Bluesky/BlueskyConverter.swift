import Foundation

/// Turns Bluesky post views and feed items into ``Tweet``s: facets (UTF-8 byte
/// ranges) into code-point entities, embeds into media, quoted posts and reposts into
/// references with the originals collected as included posts.
struct BlueskyConverter: PostConverter {
    var log: ConversionLog

    /// Quotes of quotes nest at most this deep on hostile input.
    private static let maxNesting = 4

    init(source: String, locationPrefix: String) {
        log = ConversionLog(source: source, locationPrefix: locationPrefix)
    }

    /// `getAuthorFeed` / `getTimeline`: a repost becomes a post by the reposter that
    /// references the original (as X's retweets do), the original an included post.
    mutating func convert(_ list: LossyArray<BlueskyWireFeedItem>, key: String) -> [Tweet] {
        each(list, key: key) { converter, item, location in converter.convertItem(item, at: location) }
    }

    /// One feed item: its post, or (for a repost) a post by the reposter referencing it.
    mutating func convertItem(_ item: BlueskyWireFeedItem, at location: String) -> Tweet? {
        guard let post = convertReporting(item.post, at: location + ".post") else { return nil }
        guard let reason = item.reason, reason.type == "app.bsky.feed.defs#reasonRepost", let by = reason.by else {
            return post
        }
        log.include(post)
        return Tweet(
            id: "\(post.id)#repost-by-\(by.did ?? by.handle ?? "")",
            createdAt: reason.indexedAt.flatMap(TwitterDate.parse),
            text: "", author: Self.author(by),
            references: [TweetReference(kind: .retweeted, id: post.id)],
            network: .bluesky, url: post.url)
    }

    /// One post view and the posts it quotes; nil (with a problem) when unusable.
    mutating func convertReporting(_ wire: BlueskyWirePost, at location: String) -> Tweet? {
        guard let uri = nonEmpty(wire.uri) else {
            log.report(location, "post has no \"uri\"")
            return nil
        }
        guard let record = wire.record else {
            log.report(location, "post has no \"record\"")
            return nil
        }
        let embeds = wire.embed.map { [$0] } ?? []
        return post(uri: uri, author: wire.author, record: record, embeds: embeds,
                    indexedAt: wire.indexedAt, labels: wire.labels?.values ?? [], at: location, depth: 0)
    }

    private mutating func post(
        uri: String, author: BlueskyWireProfile?, record: BlueskyWireRecord, embeds: [BlueskyWireEmbed],
        indexedAt: String?, labels: [BlueskyWireLabel] = [], at location: String, depth: Int
    ) -> Tweet {
        var media: [MediaItem] = []
        var references: [TweetReference] = []
        for embed in embeds {
            media += Self.media(embed, post: uri)
            // Only a post is a quote: a feed generator, list or starter pack embedded is not.
            guard let quoted = Self.quoted(embed), let quotedURI = nonEmpty(quoted.uri),
                  quotedURI.contains("/app.bsky.feed.post/")
            else { continue }
            references.append(TweetReference(kind: .quoted, id: quotedURI))
            // A blocked, deleted or detached quote has no record: referenced, not included.
            guard depth < Self.maxNesting, let value = quoted.value else { continue }
            log.include(post(uri: quotedURI, author: quoted.author, record: value, embeds: quoted.embeds?.values ?? [],
                         indexedAt: quoted.indexedAt, at: location + ".embed.record", depth: depth + 1))
        }
        if let parent = nonEmpty(record.reply?.parent?.uri) {
            references.append(TweetReference(kind: .repliedTo, id: parent))
        }
        let text = record.text ?? ""
        return Tweet(
            id: uri,
            createdAt: (record.createdAt ?? indexedAt).flatMap(TwitterDate.parse),
            text: text,
            author: Self.author(author),
            entities: Self.entities(record.facets?.values ?? [], in: text),
            media: media,
            references: references,
            lang: record.langs?.first,
            network: .bluesky,
            url: Self.webURL(uri: uri, author: author),
            sensitive: BlueskyWireLabel.sensitive(labels + (record.labels?.decoded?.values?.values ?? [])))
    }

    private static func author(_ profile: BlueskyWireProfile?) -> Author {
        Author(
            id: profile?.did ?? "",
            screenName: profile?.handle ?? "",
            name: profile?.displayName ?? "",
            profileImageURL: nonEmpty(profile?.avatar))
    }

    /// `https://bsky.app/profile/<handle>/post/<rkey>` for `at://<did>/app.bsky.feed.post/<rkey>`.
    static func webURL(uri: String, author: BlueskyWireProfile?) -> String? {
        let parts = uri.split(separator: "/", omittingEmptySubsequences: true)
        guard uri.hasPrefix("at://"), parts.count == 4, parts[2] == "app.bsky.feed.post" else { return nil }
        let who = nonEmpty(author?.handle) ?? String(parts[1])
        return "https://bsky.app/profile/\(who)/post/\(parts[3])"
    }

    // MARK: - Facets

    /// Mentions, links and tags whose byte range lies on character boundaries inside
    /// the text; any other facet is ignored for that entity.
    static func entities(_ facets: [BlueskyWireFacet], in text: String) -> Entities {
        guard !facets.isEmpty else { return Entities() }
        let utf8 = Array(text.utf8)
        let points = codePointOffsets(utf8)
        var entities = Entities()
        for facet in facets {
            guard let start = facet.index?.byteStart, let end = facet.index?.byteEnd,
                  let range = codePointRange(utf8, start: start, end: end, offsets: points)
            else { continue }
            let shown = String(decoding: utf8[start..<end], as: UTF8.self)
            for feature in facet.features?.values ?? [] {
                switch feature.type {
                case "app.bsky.richtext.facet#mention":
                    let handle = shown.hasPrefix("@") ? String(shown.dropFirst()) : shown
                    entities.mentions.append(Mention(range: range, username: handle, id: nonEmpty(feature.did)))
                case "app.bsky.richtext.facet#link":
                    guard let link = nonEmpty(feature.uri) else { continue }
                    entities.urls.append(URLEntity(range: range, url: link, expandedURL: link, displayURL: shown))
                case "app.bsky.richtext.facet#tag":
                    let tag = nonEmpty(feature.tag) ?? (shown.hasPrefix("#") ? String(shown.dropFirst()) : shown)
                    if !tag.isEmpty { entities.hashtags.append(Hashtag(range: range, tag: tag)) }
                default:
                    continue
                }
            }
        }
        return entities
    }

    /// UTF-8 byte offsets as code points, nil when one cuts a character or runs past
    /// the end. `offsets` (from ``codePointOffsets(_:)``) makes each lookup O(1), so a
    /// post with many facets costs one pass over its text.
    static func codePointRange(_ utf8: [UInt8], start: Int, end: Int, offsets: [Int]? = nil) -> TextRange? {
        guard start >= 0, end > start, end <= utf8.count else { return nil }
        func isBoundary(_ i: Int) -> Bool { i == utf8.count || utf8[i] & 0xC0 != 0x80 }
        guard isBoundary(start), isBoundary(end) else { return nil }
        let points = offsets ?? codePointOffsets(utf8)
        return TextRange(start: points[start], end: points[end])
    }

    /// For each byte offset 0...count, the number of code points before it.
    static func codePointOffsets(_ utf8: [UInt8]) -> [Int] {
        var offsets = [Int](repeating: 0, count: utf8.count + 1)
        var points = 0
        for (i, byte) in utf8.enumerated() {
            offsets[i] = points
            if byte & 0xC0 != 0x80 { points += 1 }
        }
        offsets[utf8.count] = points
        return offsets
    }

    // MARK: - Embeds

    /// Photos at full size (the thumbnail as the fallback), a video's thumbnail as its
    /// poster and its HLS playlist as the video (listed, not fetched: see
    /// ``MediaItem/videoIsPlaylist``), a link card's image.
    static func media(_ embed: BlueskyWireEmbed, post uri: String) -> [MediaItem] {
        let key = uri.split(separator: "/").last.map(String.init) ?? uri
        switch embed {
        case .images(let images):
            return images.enumerated().compactMap { i, image in
                guard let url = nonEmpty(image.fullsize) ?? nonEmpty(image.thumb) else { return nil }
                return MediaItem(
                    id: "\(key)-\(i)", type: .photo, imageURL: url,
                    width: image.aspectRatio?.width, height: image.aspectRatio?.height,
                    altText: nonEmpty(image.alt), sourceURL: nonEmpty(image.thumb))
            }
        case .video(let video):
            return [MediaItem(
                id: video.cid ?? "\(key)-video", type: .video, imageURL: nonEmpty(video.thumbnail),
                videoURL: nonEmpty(video.playlist), width: video.aspectRatio?.width, height: video.aspectRatio?.height, altText: nonEmpty(video.alt))]
        case .external(let card):
            guard let thumb = nonEmpty(card.thumb) else { return [] }
            return [MediaItem(id: "\(key)-card", type: .photo, imageURL: thumb, altText: nonEmpty(card.title))]
        case .recordWithMedia(_, let media?):
            return Self.media(media, post: uri)
        case .record, .recordWithMedia, .other:
            return []
        }
    }

    static func quoted(_ embed: BlueskyWireEmbed) -> BlueskyWireQuoted? {
        switch embed {
        case .record(let quoted), .recordWithMedia(let quoted, _): quoted
        default: nil
        }
    }
}

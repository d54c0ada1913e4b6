/// Bluesky (`app.bsky`) AppView shapes, as served: post views, feed items, the
/// post record with its facets, and the embed views (a union told by `$type`).
/// Every field optional so one odd post costs only itself.
struct BlueskyWirePost: Decodable {
    let uri: String?
    let cid: String?
    let author: BlueskyWireProfile?
    let record: BlueskyWireRecord?
    let embed: BlueskyWireEmbed?
    let indexedAt: String?
    /// Labels on the post: its author's own and those of moderation services.
    let labels: LossyArray<BlueskyWireLabel>?
}

struct BlueskyWireProfile: Decodable {
    let did: String?
    let handle: String?
    let displayName: String?
    let avatar: String?
}

/// `app.bsky.feed.post`: the text, its facets (UTF-8 byte ranges) and the reply link.
struct BlueskyWireRecord: Decodable {
    let text: String?
    let facets: LossyArray<BlueskyWireFacet>?
    let createdAt: String?
    let langs: [String]?
    let reply: BlueskyWireReply?
    /// The author's self-labels (`com.atproto.label.defs#selfLabels`).
    let labels: Lossy<BlueskyWireSelfLabels>?
}

struct BlueskyWireSelfLabels: Decodable {
    let values: LossyArray<BlueskyWireLabel>?
}

/// One label (`com.atproto.label.defs#label` or `#selfLabel`): its value, and whether
/// it takes back an earlier label of that value (`neg`).
struct BlueskyWireLabel: Decodable {
    let val: String?
    let neg: Bool?

    /// The labels the Bluesky app hides media behind until a click: adult content
    /// (`porn`, `sexual`, `nudity`), graphic media (`graphic-media`, formerly `gore`),
    /// and the generic warning (`!warn`).
    static let hidesMedia: Set<String> = ["porn", "sexual", "nudity", "graphic-media", "gore", "!warn"]

    static func sensitive(_ labels: [BlueskyWireLabel]) -> Bool {
        let negated = Set(labels.filter { $0.neg == true }.compactMap(\.val))
        return labels.contains { label in
            guard label.neg != true, let val = label.val else { return false }
            return hidesMedia.contains(val) && !negated.contains(val)
        }
    }
}

struct BlueskyWireReply: Decodable {
    let parent: BlueskyWireStrongRef?
}

struct BlueskyWireStrongRef: Decodable {
    let uri: String?
}

struct BlueskyWireFacet: Decodable {
    let index: BlueskyWireByteSlice?
    let features: LossyArray<BlueskyWireFeature>?
}

struct BlueskyWireByteSlice: Decodable {
    let byteStart: Int?
    let byteEnd: Int?
}

/// `#mention` (`did`), `#link` (`uri`) or `#tag` (`tag`).
struct BlueskyWireFeature: Decodable {
    let type: String?
    let did: String?
    let uri: String?
    let tag: String?

    enum CodingKeys: String, CodingKey {
        case type = "$type", did, uri, tag
    }
}

/// An embed view: images, video, external link card, a quoted record, or a quoted
/// record with media. `indirect`: a quoted post carries embeds of its own.
indirect enum BlueskyWireEmbed: Decodable {
    case images([BlueskyWireImage])
    case video(BlueskyWireVideo)
    case external(BlueskyWireExternal)
    case record(BlueskyWireQuoted?)
    case recordWithMedia(BlueskyWireQuoted?, media: BlueskyWireEmbed?)
    case other

    private enum Keys: String, CodingKey {
        case type = "$type", images, external, record, media
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        switch try c.decodeIfPresent(String.self, forKey: .type) {
        case "app.bsky.embed.images#view":
            self = .images((try c.decodeIfPresent(LossyArray<BlueskyWireImage>.self, forKey: .images))?.values ?? [])
        case "app.bsky.embed.video#view":
            self = .video(try BlueskyWireVideo(from: decoder))
        case "app.bsky.embed.external#view":
            guard let external = try c.decodeIfPresent(BlueskyWireExternal.self, forKey: .external) else {
                self = .other
                return
            }
            self = .external(external)
        case "app.bsky.embed.record#view":
            self = .record(try? c.decodeIfPresent(BlueskyWireQuoted.self, forKey: .record))
        case "app.bsky.embed.recordWithMedia#view":
            // `record` is itself an `app.bsky.embed.record#view` holding the quoted record.
            let wrapper = try? c.nestedContainer(keyedBy: Keys.self, forKey: .record)
            let quoted = try? wrapper?.decodeIfPresent(BlueskyWireQuoted.self, forKey: .record)
            self = .recordWithMedia(quoted ?? nil, media: try? c.decodeIfPresent(BlueskyWireEmbed.self, forKey: .media))
        default:
            self = .other
        }
    }
}

struct BlueskyWireImage: Decodable {
    let thumb: String?
    let fullsize: String?
    let alt: String?
    let aspectRatio: BlueskyWireAspectRatio?
}

struct BlueskyWireAspectRatio: Decodable {
    let width: Int?
    let height: Int?
}

struct BlueskyWireVideo: Decodable {
    let cid: String?
    let playlist: String?
    let thumbnail: String?
    let alt: String?
    let aspectRatio: BlueskyWireAspectRatio?
}

struct BlueskyWireExternal: Decodable {
    let uri: String?
    let title: String?
    let thumb: String?
}

/// `app.bsky.embed.record#viewRecord`: a quoted post as the AppView shows it (its
/// record under `value`); a blocked or deleted one has no `value` and is skipped.
struct BlueskyWireQuoted: Decodable {
    let uri: String?
    let author: BlueskyWireProfile?
    let value: BlueskyWireRecord?
    let embeds: LossyArray<BlueskyWireEmbed>?
    let indexedAt: String?
}

/// A feed item (`getAuthorFeed`, `getTimeline`): the post, and why it is there.
struct BlueskyWireFeedItem: Decodable {
    let post: BlueskyWirePost
    let reason: BlueskyWireReason?
}

/// `app.bsky.feed.defs#reasonRepost`: `by` reposted the item's post.
struct BlueskyWireReason: Decodable {
    let type: String?
    let by: BlueskyWireProfile?
    let indexedAt: String?

    enum CodingKeys: String, CodingKey {
        case type = "$type", by, indexedAt
    }
}

/// `searchPosts` and `getPosts`: `{"posts": [...], "cursor": ...}`.
struct BlueskyWirePosts: Decodable {
    let posts: LossyArray<BlueskyWirePost>
    let cursor: String?
}

/// `getAuthorFeed` and `getTimeline`: `{"feed": [...], "cursor": ...}`.
struct BlueskyWireFeed: Decodable {
    let feed: LossyArray<BlueskyWireFeedItem>
    let cursor: String?
}

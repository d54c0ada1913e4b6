public import Foundation

/// A post that uses an image, as a list of duplicates shows it.
public struct DuplicatePost: Sendable, Codable, Equatable {
    public var id: String
    public var screenName: String
    /// `x`, `mastodon` or `bluesky`.
    public var network: String
    public var createdAt: Date?

    public init(id: String, screenName: String, network: String, createdAt: Date?) {
        self.id = id
        self.screenName = screenName
        self.network = network
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, network
        case screenName = "screen_name"
        case createdAt = "created_at"
    }
}

/// A cached image that looks like another one, and the posts that use it.
public struct NearDuplicate: Sendable, Codable, Equatable {
    public var sha256: String
    /// Bits from the image (or hash) it was found for: 0 is the same picture.
    public var distance: Int
    /// How the match was found when the image is turned or mirrored ("mirrored left to
    /// right"), nil when it matched as is.
    public var transform: String?
    public var quality: Int
    /// Earliest first (who posted it first); undated posts last.
    public var posts: [DuplicatePost]

    public init(sha256: String, distance: Int, transform: String?, quality: Int, posts: [DuplicatePost]) {
        self.sha256 = sha256
        self.distance = distance
        self.transform = transform
        self.quality = quality
        self.posts = posts
    }

    /// The earliest post's date, for ordering a group.
    public var firstPosted: Date? { posts.first?.createdAt }
}

/// Near-identical images: each at most the threshold from another of the group.
public struct DuplicateGroup: Sendable, Codable, Equatable {
    /// Earliest posted first; distances are from that first image.
    public var images: [NearDuplicate]

    public init(images: [NearDuplicate]) { self.images = images }

    /// Distinct posts over all the images.
    public var postCount: Int { Set(images.flatMap { $0.posts.map(\.id) }).count }
}
